import FoundationEssentials

/// The version of feedcli, for `--version` and the `User-Agent`.
public enum FeedcliVersion {
    public static let current = "0.2.0"
}
