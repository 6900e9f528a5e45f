/// The plainest `next` command line, `next [FEED] [--state PATH]` with every other option at its
/// default, recognised without ArgumentParser.
///
/// Why: ArgumentParser builds a command's argument set by reflection, and the first time a
/// process does that it instantiates the option types and looks up a few hundred protocol
/// conformances, each a scan of the binary's conformance records: a tenth of a whole `feedcli
/// next` (docs/PERFORMANCE.md). `next` is the command people and scripts run most, and this is
/// how they run it.
///
/// What it takes: the command name `next` first, then in any order at most one feed name and at
/// most one `--state PATH` or `--state=PATH`. A feed name or path that is empty or starts with
/// `-`, a second feed, `--`, and every other option (`--help` and `--version` among them) are not
/// recognised: ArgumentParser parses those lines, and answers every mistake, as for every other
/// command. What is recognised here means what ArgumentParser would make of it; the tests run
/// both on the same lines and compare.
struct PlainNextCommandLine: Equatable, Sendable {
    /// The feed; nil when the line names none (`posts` while it is the only feed, else all).
    var feed: String?
    /// `--state`'s value; nil when not given (the environment's default store).
    var statePath: String?

    init(feed: String? = nil, statePath: String? = nil) {
        self.feed = feed
        self.statePath = statePath
    }

    /// The line's meaning, or nil when it is anything but the plainest `next`. `arguments` is
    /// the command line without the program's name.
    init?(_ arguments: [String]) {
        guard arguments.first == "next" else { return nil }
        var feed: String?
        var statePath: String?
        var rest = arguments.dropFirst().makeIterator()
        while let argument = rest.next() {
            if argument == "--state" || argument.hasPrefix("--state=") {
                let value = argument == "--state" ? rest.next() : String(argument.dropFirst("--state=".count))
                guard statePath == nil, let value, Self.isPlainValue(value) else { return nil }
                statePath = value
            } else {
                guard feed == nil, Self.isPlainValue(argument) else { return nil }
                feed = argument
            }
        }
        self.init(feed: feed, statePath: statePath)
    }

    /// A value no parser could read as an option or the end of options.
    private static func isPlainValue(_ value: String) -> Bool {
        !value.isEmpty && !value.hasPrefix("-")
    }
}
