import ArgumentParser

/// An entry named on the command line (`show`, `open`): its id, or the handle plain output
/// shows, and its feed when more than one feed has an entry of that id.
public struct EntryArguments: ParsableArguments {
    @Argument(help: "The entry's id, or its handle (@42) as plain output shows it.") public var id: String
    @Option(help: "The entry's feed.", completion: .feedNames) public var feed: String?

    public init() {}
}
