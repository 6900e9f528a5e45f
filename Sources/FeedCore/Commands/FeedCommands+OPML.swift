/// Moving subscriptions in and out as OPML 2.0 (`feeds import`, `feeds export --opml`), as every
/// feed reader offers.
extension FeedCommands {
    /// `feedcli feeds export --opml`: every feed as one OPML document on stdout; no network, no
    /// change to the store. A reader that leaves is a quiet end, as for `list`.
    public static func exportOPML(context: CommandContext) -> Int32 {
        do {
            let records = try context.openStore(access: .readOnly).feeds()
            do throws(OutputError) {
                try context.stdout.write(OPMLWriter.document(records, created: context.now()))
                return 0
            } catch {
                return finishReading(error, context: context)
            }
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli feeds import FILE` (`-` for stdin): registers every feed the OPML file lists, as
    /// `feeds add` would (one stderr line each; the kind found out when the file does not say it,
    /// which asks the URL), skipping names and URLs already registered. A file that is not OPML
    /// is 65 and registers nothing; otherwise the exit code is that of the most serious feed that
    /// could not be added (0 when every feed was added or already there).
    public static func importOPML(path: String, context: CommandContext) -> Int32 {
        do {
            let text = try readText(path)
            let outlines: [[String: String]]
            do {
                outlines = try OPML.feedOutlines(in: text)
            } catch {
                throw FeedFailure.badData("\(path) is not an OPML file feedcli can read: \(error)")
            }
            let store = try context.openStore()
            let existing = try store.feeds()
            var names = Set(existing.map(\.name))
            var urls = Dictionary(existing.map { ($0.registration.url, $0.name) }, uniquingKeysWith: { first, _ in first })
            var failures: [Int32] = []
            var added = 0
            for outline in outlines {
                guard let url = outline["xmlUrl"] else { continue }
                let title = outline[OPML.Attribute.name] ?? outline["text"] ?? outline["title"] ?? URLComponents(string: url)?.host ?? ""
                guard let name = OPML.feedName(from: title) else {
                    note("skipped \(url): no feed name can be made of its title", context: context)
                    continue
                }
                if let existing = urls[url] {
                    note("skipped \(name): \(url) is already feed \(existing)", context: context)
                    continue
                }
                if names.contains(name) {
                    note("skipped \(name): a feed of that name exists (add it with feeds add NAME URL)", context: context)
                    continue
                }
                let kind = outline[OPML.Attribute.kind].flatMap(FeedKind.init(rawValue:))
                let status = addFeed(
                    name: name, url: url, kind: kind, tokenEnv: outline[OPML.Attribute.tokenEnv], replace: false,
                    every: outline[OPML.Attribute.every].flatMap(EveryDuration.parse),
                    expressions: outline[OPML.Attribute.expressions].flatMap(FeedExpressions.init(json:)) ?? FeedExpressions(),
                    context: context)
                guard status == 0 else {
                    failures.append(status)
                    continue
                }
                if let kind { note("added \(name): \(kind.rawValue), as the file says", context: context) }
                names.insert(name)
                urls[url] = name
                added += 1
            }
            note("imported \(added) of \(outlines.count) feeds from \(path)", context: context)
            return failures.max { lhs, rhs in
                // As for several feeds of a sync: a permanent failure outranks a temporary one.
                (lhs == 75 ? 0 : lhs) < (rhs == 75 ? 0 : rhs)
            } ?? 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// One line on stderr (a diagnostic: one that cannot be written changes nothing).
    private static func note(_ text: String, context: CommandContext) {
        try? context.stderr.write("feedcli: \(TerminalText.safe(text))\n")
    }

    /// The file's text, or stdin's for `-`; 66 when it cannot be read.
    private static func readText(_ path: String) throws(FeedFailure) -> String {
        if path == "-" {
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                data.append(contentsOf: buffer[..<count])
            }
            return String(decoding: data, as: UTF8.self)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .notFound("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
