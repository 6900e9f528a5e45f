import ArgumentParser
import FeedModel
import FeedStore
import FeedStoreContract
import FoundationEssentials
import Glibc

/// `feedcli feeds import FILE` (`-` for stdin): registers every feed the OPML file (or newsboat
/// `urls` file, `NewsboatURLs`) lists, as
/// `feeds add` would (one stderr line each; the kind found out when the file does not say it,
/// which asks the URL), skipping names and URLs already registered, all in one transaction.
/// A file is someone else's word: a token variable it names is not taken (the feed is added
/// without one, and a line says how to give it one), a masked password (`***`) is refused, and
/// an expression that reads input or files is refused as at `feeds add`. A file that is not
/// OPML nor a urls file is 65 and registers nothing; otherwise the exit status is 0 when nothing was skipped,
/// else 65.
public struct FeedsImport: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add the feeds an OPML file (another reader's export) or a newsboat urls file lists; - for stdin.")
    @Argument(
        help: ArgumentHelp("The OPML or urls file.", valueName: "file"), completion: .file(extensions: ["opml", "xml"]))
    var file: String
    @Flag(help: "Take what each feed holds now as read: only later entries are new (streams start live).")
    var fromNow = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func run(_ context: CommandContext) throws -> Int32 {
        let text = try Self.readText(file)
        let outlines: [[String: String]]
        do {
            outlines = try OPML.feedOutlines(in: text)
        } catch {
            // newsboat's own list of feeds, as it is (before, only its `newsboat -e` export).
            guard let urls = NewsboatURLs.outlines(in: text) else {
                throw FeedFailure.badData(
                    "\(file) is not an OPML file feedcli can read (\(error)), nor a newsboat urls file "
                        + "(a URL first on every line); other readers export OPML (newsboat -e, sfeed_opml_export)")
            }
            outlines = urls
        }
        let store = try context.openStore()
        let existing = try store.feeds()
        var names = Set(existing.map(\.name))
        // The feeds on each URL: one URL may be several feeds (different filters, kinds).
        var urls = Dictionary(grouping: existing.map(\.registration), by: \.url)
        var adding: [(feed: FeedRegistration, settings: FeedSettings)] = []
        var unreadableRetention: [String] = []
        var present = 0
        var skipped = 0
        func note(_ text: String) {
            // A diagnostic: one that cannot be written changes nothing.
            try? context.stderr.write("feedcli: \(TerminalText.safe(text))\n")
        }
        for outline in outlines {
            guard let url = OPML.feedURL(in: outline)?.trimmingWhitespace() else { continue }
            let shown = Redaction.maskingSecrets(in: url)
            // feedcli's own attribute, else the title, else the text, else the URL's host and
            // path: the first that makes a name (newsboat writes `title=""`); a name of the URL
            // gives way to the feed's own title once detection has read it (below).
            let candidates =
                [OPML.value(.name, in: outline), outline["title"], outline["text"]].compactMap {
                    $0?.trimmingWhitespace()
                }
                + [URLComponents(string: url).map { ($0.host ?? "") + $0.path } ?? ""]
            guard var name = candidates.lazy.compactMap(OPML.feedName(from:)).first else {
                note("skipped \(shown): no feed name can be made of its title")
                skipped += 1
                continue
            }
            let kind = OPML.value(.kind, in: outline).flatMap(FeedKind.init(rawValue:))
            let expressions =
                OPML.value(.expressions, in: outline).flatMap(FeedExpressions.init(json:)) ?? FeedExpressions()
            // The same URL with the same settings is that feed; with others (another filter,
            // another kind) it is a feed of its own, so an export imports back whole.
            if let same = urls[url]?.first(where: { (kind == nil || $0.kind == kind) && $0.expressions == expressions })
            {
                note("skipped \(name): \(shown) is already feed \(same.name)")
                present += 1
                continue
            }
            if names.contains(name) {
                note("skipped \(name): a feed of that name exists (add it with feeds add NAME URL)")
                present += 1
                continue
            }
            if Redaction.hasMaskedSecret(url) {
                note(
                    "skipped \(name): its URL's password or key is masked (***) in the file; add it with feeds add and the real one"
                )
                skipped += 1
                continue
            }
            do {
                let feed = try FeedAdmission.validated(
                    name: name, url: url, kind: kind, tokenEnv: nil,
                    expressions: expressions, context: context)
                var (chosen, found, title) = try FeedAdmission.detected(feed, kindGiven: kind != nil, context: context)
                // A name made of the URL gives way to the feed's own title, when the file gave
                // none (a bare URL, a newsboat urls line without its `~` name).
                let namedByURL = candidates.dropLast().allSatisfy { OPML.feedName(from: $0) == nil }
                if namedByURL, let better = title.flatMap(OPML.feedName(from:)), !names.contains(better) {
                    name = better
                    chosen.name = better
                }
                // A retention the file gives (an export of a feed that chose one); one it cannot
                // read leaves the kind's default, and is said below.
                let keep = OPML.value(.keep, in: outline)
                let remember = OPML.value(.remember, in: outline)
                let settings = FeedSettings(
                    every: OPML.value(.every, in: outline).flatMap(EveryDuration.parse),
                    keep: keep.flatMap(Retention.Keep.init), remember: remember.flatMap(Retention.Remember.init),
                    // The feed's own title, else the one the other reader kept for it.
                    title: FeedSettings.sourceTitle(title) ?? FeedSettings.sourceTitle(outline["title"])
                        ?? FeedSettings.sourceTitle(outline["text"]))
                if (keep != nil && settings.keep == nil) || (remember != nil && settings.remember == nil) {
                    unreadableRetention.append(name)
                }
                adding.append((chosen, settings))
                names.insert(name)
                urls[url, default: []].append(chosen)
                note("added \(name): \(found ?? "\(chosen.kind.rawValue), as the file says")")
                if let variable = OPML.value(.tokenEnv, in: outline) {
                    note(
                        "\(name) sends no token: the file names $\(variable), and a file never decides which secret goes to "
                            + "which host; to send it: feedcli feeds set \(name) --token-env \(variable)")
                }
            } catch {
                let failure = FeedFailure.wrap(error)
                if failure == .interrupted || context.interruption.isTriggered { throw failure }
                note("skipped \(name): \(failure.description)")
                skipped += 1
            }
        }
        try store.addFeeds(adding)
        for name in unreadableRetention {
            note("\(name): the file's keep or remember is not one feedcli reads; it keeps the default")
        }
        note(
            "imported \(adding.count) of \(outlines.count) feeds from \(file) (\(present) already there, \(skipped) skipped)"
        )
        var failures: [FeedFailure] = []
        if fromNow, !adding.isEmpty {
            for (feed, failure) in try context.startFromNow(adding.map(\.feed.name), removesFailed: true, said: note) {
                context.report(failure, feed: feed)
                note("\(feed) was not added (--from-now): import the file again once it answers")
                failures.append(failure)
            }
        }
        if let worst = FeedFailure.mostSerious(failures) { return worst.exitCode }
        // Something skipped is the file's data not being what feedcli can add (65).
        return skipped == 0 ? 0 : FeedFailure.badData("a feed was skipped").exitCode
    }

    /// No subscription list comes near this (a list of 10,000 feeds is about 2 MiB); a file past
    /// it is refused before memory runs out (`feeds import /dev/zero` read until it trapped).
    static let maxFileBytes = 16 << 20

    /// The file's text, or stdin's for `-`; 66 when it cannot be read, 65 past `maxFileBytes`.
    /// Read with `read(2)` to its end, so a pipe (`<(…)`, `/dev/stdin`) reads as a file does.
    private static func readText(_ path: String) throws(FeedFailure) -> String {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .notFound("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw .notFound("cannot read \(path): \(String(cString: strerror(errno)))") }
            guard count > 0 else { break }
            guard data.count + count <= maxFileBytes else {
                throw .badData(
                    "\(path) is larger than \(maxFileBytes >> 20) MiB: not a subscription list feedcli reads")
            }
            data.append(contentsOf: buffer[..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }
}
