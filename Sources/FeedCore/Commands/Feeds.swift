import ArgumentParser

/// `feedcli feeds …`: the group of the commands that register, list, change and remove feeds.
public struct Feeds: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "feeds",
        abstract: "Register, list, change and remove feeds.",
        subcommands: [
            FeedsAdd.self, FeedsList.self, FeedsSet.self, FeedsRemove.self, FeedsRemoveShort.self, FeedsImport.self,
            FeedsExport.self,
        ])

    public init() {}
}
