import FeedHTTP
import FeedJQ
import FeedKinds
import FeedModel
import FeedReactor
import FeedRendering
import FeedStore
import FeedTerminal
import FoundationEssentials
import Glibc

/// The commands, as functions from a context to an exit status. The CLI parses arguments and calls
/// these; everything they do is testable without a process.
public enum FeedCommands {
    /// `feedcli next [FEED]`: prints the oldest unread entry (fetching when none is unread) and
    /// then marks it read. 0 when one was printed, 1 when there was none, else the failure's code.
    /// With no feed: `posts` while it is the only feed, else as `next --all`.
    public static func next(feed: String?, context: CommandContext) -> Int32 {
        deliverOne(.next(feed: feed), context: context)
    }

    /// `feedcli next --all [FEED…]`: the oldest unread entry of the named feeds (all when none) by
    /// publication, syncing those that are due only when none has anything unread.
    public static func nextOfAll(feeds: [String], context: CommandContext) -> Int32 {
        deliverOne(.nextOfAll(feeds: feeds), context: context)
    }

    private static func deliverOne(_ action: FeedAction, context: CommandContext) -> Int32 {
        let progress = context.showsProgress ? ProgressLine(sink: context.stderr) : nil
        let printer = EntryPrinter(format: context.format, layout: .detailed, sink: context.stdout,
                                   interruption: context.interruption, progress: progress, patience: context.readerPatience)
        let state: FeedReactorState
        do {
            state = try runReactor(action, context: context, output: printer, progress: progress)
        } catch {
            return fail(error, context: context)
        }
        if let status = runFailure(state, context: context) { return status }
        if !state.delivered.isEmpty { return 0 }
        reportFeedFailures(state, context: context)
        return FeedFailure.mostSerious(state.failures)?.exitCode ?? 1
    }

    /// `feedcli read ID… [--feed FEED]` (`isRead`) and `feedcli unread ID… [--feed FEED]`: ids or
    /// handles, in one transaction; 66 and nothing changed when one names no entry. No network.
    public static func setRead(_ isRead: Bool, references: [String], feed: String?, context: CommandContext) -> Int32 {
        do {
            _ = try context.openStore().setRead(isRead, references: references, feed: feed)
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli open ID [--feed FEED]`: the entry's `url` through `$BROWSER`, else `xdg-open`.
    /// 66 when the entry has no http(s) address, 78 when nothing could open it.
    public static func open(reference: String, feed: String?, context: CommandContext) -> Int32 {
        do {
            let entries = try storedEntries(reference, feed: feed, context: context)
            try FeedStore.refuseAmbiguous(reference, entries)
            let entry = entries[0]
            guard let url = entry.url, !url.isEmpty else {
                throw FeedFailure.notFound("entry \(entry.handle) of \(entry.feed) has no web address to open")
            }
            // A feed's link is the server's word: only a usable http(s) URL goes to a browser
            // (never `javascript:`, `file:`, or `--help` taken as an option).
            if let why = FeedRegistration.whyUnusableLink(url) {
                throw FeedFailure.notFound("will not open \(Excerpt.of(Redaction.maskingSecrets(in: url), limit: 80)), the link of entry "
                                           + "\(entry.handle) of \(entry.feed): it \(why)")
            }
            let (program, status) = Launcher.open(url, environment: context.environment)
            guard let status else {
                throw FeedFailure.configuration("nothing can open \(url): \(program) was not found (set $BROWSER)")
            }
            guard status == 0 else {
                throw FeedFailure.configuration("\(program) could not open \(url) (it exited \(status))")
            }
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli read --all [FEED…]`: every entry of the feeds (all feeds when none) read.
    public static func readAll(feeds: [String], context: CommandContext) -> Int32 {
        do {
            _ = try context.openStore().markAllRead(feeds: feeds)
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli sync [FEED…]`: prints the new entries of every named feed (all when none), goes on
    /// past failing feeds (one stderr line each) and exits with the most serious failure's code.
    /// Each feed's entries are printed as one block as soon as they are fetched, and committed
    /// once printed.
    public static func sync(feeds: [String], context: CommandContext) -> Int32 {
        let progress = context.showsProgress ? ProgressLine(sink: context.stderr) : nil
        let printer = EntryPrinter(format: context.format, layout: .list, sink: context.stdout,
                                   interruption: context.interruption, progress: progress, patience: context.readerPatience)
        let state: FeedReactorState
        do {
            state = try runReactor(.sync(feeds: feeds), context: context, output: printer, progress: progress)
        } catch {
            return fail(error, context: context)
        }
        reportFeedFailures(state, context: context)
        // An interrupted run still ends its JSON array; an output that failed takes nothing more.
        if case .output? = state.failure {} else {
            do throws(OutputError) {
                try printer.finish()
            } catch {
                return fail(FeedFailure.output("cannot write to stdout (\(error)); every entry printed was committed"),
                            context: context)
            }
        }
        if let status = runFailure(state, context: context) { return status }
        let failed = state.feeds.values.filter { $0.failure != nil }.count
        let new = state.newEntryCount
        // Nothing new and nothing failed prints nothing at all (contract), summary included.
        if context.showsProgress, state.feeds.count > 1, new > 0 || failed > 0 {
            // A courtesy on a terminal, like the progress line: a stderr that fails changes nothing.
            try? context.stderr.write("feedcli: \(state.feeds.count) feeds, \(new) new \(new == 1 ? "entry" : "entries")"
                                      + (failed > 0 ? ", \(failed) failed" : "") + "\n")
        }
        return FeedFailure.mostSerious(state.failures)?.exitCode ?? 0
    }

    /// `feedcli list [FEED]`: streams stored entries, oldest first; no network.
    public static func list(feed: String?, unreadOnly: Bool, limit: Int?, context: CommandContext) -> Int32 {
        paging(context) { context in listNow(feed: feed, unreadOnly: unreadOnly, limit: limit, context: context) }
    }

    private static func listNow(feed: String?, unreadOnly: Bool, limit: Int?, context: CommandContext) -> Int32 {
        let width = context.stdout.columns
        do {
            let store = try context.openStore(access: .readOnly)
            if let feed { _ = try store.feed(named: feed) }
            var count = 0
            return try stream(context: context, begin: [], end: { EntryRenderer.end(count: count, format: context.format, layout: .list) }) { each in
                try store.forEachEntry(feed: feed, unreadOnly: unreadOnly, limit: limit) { entry in
                    defer { count += 1 }
                    let number = count
                    return each { EntryRenderer.element(entry, number: number, format: context.format, layout: .list, width: width, into: &$0) }
                }
            }
        } catch {
            return fail(error, context: context)
        }
    }

    /// Streams a document to stdout through a 64 KiB buffer: `begin`, the parts `produce` hands
    /// to `each` (which says whether to go on), then `end()`. A reader that leaves ends it
    /// quietly (0); any other failed write is 74.
    private static func stream(
        context: CommandContext, begin: [UInt8], end: () -> [UInt8],
        _ produce: (_ each: (_ render: (inout [UInt8]) -> Void) -> Bool) throws -> Void
    ) throws -> Int32 {
        var output = OutputBuffer(sink: context.stdout)
        var failure: OutputError?
        func attempt(_ write: (inout OutputBuffer) throws(OutputError) -> Void) {
            guard failure == nil else { return }
            do throws(OutputError) { try write(&output) } catch { failure = error }
        }
        attempt { (output: inout OutputBuffer) throws(OutputError) in try output.append(begin) }
        if failure == nil {
            try produce { render in
                attempt { (output: inout OutputBuffer) throws(OutputError) in try output.render(render) }
                return failure == nil
            }
        }
        attempt { (output: inout OutputBuffer) throws(OutputError) in try output.append(end()) }
        attempt { (output: inout OutputBuffer) throws(OutputError) in try output.flush() }
        return finishReading(failure, context: context)
    }

    /// `feedcli export [FEED…] --format jsonfeed|atom [--limit N] [--unread]`: the stored entries,
    /// newest first, as one feed document, streamed; no network, no change to the store. Output
    /// failures as for `list`: a reader that leaves is a quiet end.
    public static func export(feeds: [String], format: ExportFormat, unreadOnly: Bool, limit: Int?, context: CommandContext) -> Int32 {
        do {
            let store = try context.openStore(access: .readOnly)
            let records = feeds.isEmpty ? try store.feeds() : try feeds.map { name throws(FeedFailure) in try store.feed(named: name) }
            var seen = Set<String>()
            let names = records.map(\.name).filter { seen.insert($0).inserted }
            let updated = records.compactMap { $0.lastSuccessAt ?? $0.lastFetchAt }.max() ?? context.now()
            let writer = FeedExportWriter(format: format, feeds: names, updated: Timestamp.format(updated))
            var first = true
            return try stream(context: context, begin: writer.header(), end: writer.footer) { each in
                try store.forEachEntry(feeds: feeds, unreadOnly: unreadOnly, limit: limit, newestFirst: true) { entry in
                    defer { first = false }
                    let isFirst = first
                    return each { $0 += writer.entry(entry, first: isFirst) }
                }
            }
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli show ID [--feed FEED]`: the stored entry (every feed's entry with that id when no
    /// feed is named).
    public static func show(id: String, feed: String?, context: CommandContext) -> Int32 {
        paging(context) { context in showNow(id: id, feed: feed, context: context) }
    }

    private static func showNow(id: String, feed: String?, context: CommandContext) -> Int32 {
        do {
            let entries = try storedEntries(id, feed: feed, context: context)
            // `--json` gives one object for one entry, an array for several.
            let layout: EntryRenderer.Layout = context.format == .plain || (context.format == .json && entries.count == 1)
                ? .detailed : .list
            var bytes: [UInt8] = []
            for (number, entry) in entries.enumerated() {
                EntryRenderer.element(entry, number: number, format: context.format, layout: layout,
                                      width: context.stdout.columns, into: &bytes)
            }
            bytes += EntryRenderer.end(count: entries.count, format: context.format, layout: layout)
            do throws(OutputError) {
                try context.stdout.write(bytes)
                return 0
            } catch {
                return finishReading(error, context: context)
            }
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli feeds add NAME URL --kind KIND [--replace] [--token-env VAR]`.
    public static func addFeed(_ feed: FeedRegistration, replace: Bool, context: CommandContext) -> Int32 {
        addFeed(name: feed.name, url: feed.url, kind: feed.kind, tokenEnv: feed.tokenEnv, replace: replace, context: context)
    }

    /// `feedcli feeds add NAME URL [--kind KIND] [--replace] [--token-env VAR] [jq expressions]`:
    /// without a kind, the URL is asked what it is (one request, and `URL/1` when that does not
    /// tell), unless a `json` mapping is given; with one, no request is made. Expressions are
    /// compiled first: one jq cannot compile is a usage error and nothing is registered.
    public static func addFeed(
        name: String, url: String, kind: FeedKind?, tokenEnv: String?, replace: Bool, every: Duration? = nil,
        expressions: FeedExpressions = FeedExpressions(), context: CommandContext
    ) -> Int32 {
        do {
            let feed = try validated(name: name, url: url, kind: kind, tokenEnv: tokenEnv, expressions: expressions, context: context)
            let store = try context.openStore()
            if !replace, try store.hasFeed(named: name) {
                throw FeedFailure.usage("feed \(name) exists; use --replace to change it")
            }
            let (chosen, found) = try detected(feed, kindGiven: kind != nil, context: context)
            // Replacing a feed waits for a run on it, as a sync does: that run's cursor and
            // validators belong to the old URL and must not land on the new one.
            let lock = replace ? try store.lock(feedNamed: name) : nil
            try store.addFeed(chosen, replace: replace)
            withExtendedLifetime(lock) {}
            if let every { try store.setEvery(feed: name, every) }
            // What detection found, for the person who asked (a diagnostic: stdout stays empty).
            if let found { try? context.stderr.write("feedcli: \(replace ? "replaced" : "added") \(name): \(TerminalText.safe(found))\n") }
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// The feed `feeds add` would register, its names, URL and expressions checked (nothing is
    /// asked of the network or the store); its kind is `.linked` when not given and not `json`.
    package static func validated(
        name: String, url: String, kind: FeedKind?, tokenEnv: String?, expressions: FeedExpressions, context: CommandContext
    ) throws(FeedFailure) -> FeedRegistration {
        guard FeedRegistration.isValidName(name) else {
            throw FeedFailure.usage("feed names use letters, digits, '.', '-' and '_' (at most 64): \(name)")
        }
        guard FeedRegistration.isValidURL(url) else {
            throw FeedFailure.configuration("not an http or https URL: \(Redaction.maskingSecrets(in: url))")
        }
        if expressions.hasMapping, let kind, !kind.usesExpressions {
            throw FeedFailure.usage("--items, --id, --next-url and the other mapping options are for --kind json, not \(kind.rawValue)")
        }
        let feed = FeedRegistration(name: name, url: url, kind: kind ?? (expressions.hasMapping ? .json : .linked),
                                    tokenEnv: tokenEnv, expressions: expressions)
        try check(feed, checksPaging: kind != nil || expressions.hasMapping, context: context)
        return feed
    }

    /// `feed` with its kind found out by asking its URL, unless the kind was given or its
    /// expressions make it `json`; what was found, for the person who asked.
    package static func detected(
        _ feed: FeedRegistration, kindGiven: Bool, context: CommandContext
    ) throws -> (feed: FeedRegistration, found: String?) {
        guard !kindGiven, !feed.expressions.hasMapping else { return (feed, nil) }
        let detected = try detectKind(feed, context: context)
        var chosen = feed
        chosen.kind = detected.kind
        return (chosen, detected.summary)
    }

    /// Compiles every expression the feed will run (jq's message is the usage error) and checks
    /// the paging options of a feed read by expressions.
    private static func check(_ feed: FeedRegistration, checksPaging: Bool = true, context: CommandContext) throws(FeedFailure) {
        let expressions = feed.effectiveExpressions
        if checksPaging, feed.kind.usesExpressions, let problem = expressions.pagingProblem { throw .usage(problem) }
        for (option, expression) in expressions.expressions {
            do {
                try JQ.check(expression, limits: JQ.Limits(memory: context.fetch.jqMemory, timeout: .seconds(10)))
            } catch .unavailable(let message) {
                throw .configuration("\(option): \(message)")
            } catch {
                throw .usage("\(option) `\(TerminalText.safe(Excerpt.of(expression, limit: 60)))`: \(error)")
            }
        }
    }

    private static func detectKind(_ feed: FeedRegistration, context: CommandContext) throws -> KindDetection.Found {
        try withHTTPClient(context) { http in
            let fetcher = FeedFetcher(http: http, workQueue: FeedEnvironment.workQueue, options: context.fetch,
                                      scheduler: context.scheduler, random: { Double.random(in: 0...1) },
                                      environment: context.environment, logger: context.logger)
            return try KindDetection.detect(feed, fetcher: fetcher)
        }
    }

    /// `feedcli feeds set NAME [--every DURATION|never] [--token-env VAR] [jq expressions]`:
    /// changes what is given (an empty expression or variable unsets one); entries, read state
    /// and cursors are kept.
    public static func setFeed(
        _ name: String, every: Duration??, expressions changes: FeedExpressions = FeedExpressions(), tokenEnv: String?? = nil,
        context: CommandContext
    ) -> Int32 {
        do {
            let store = try context.openStore()
            let record = try store.feed(named: name)
            if let tokenEnv {
                if let variable = tokenEnv, !FeedRegistration.isValidVariableName(variable) {
                    throw FeedFailure.usage("--token-env takes an environment variable's name (letters, digits, _): \(variable)")
                }
                try store.setTokenEnv(feed: name, tokenEnv)
            }
            if changes != FeedExpressions() {
                var changed = record.registration
                changed.expressions = changed.expressions.merging(changes)
                if changed.expressions.hasMapping, !changed.kind.usesExpressions {
                    throw FeedFailure.usage("--items, --id, --next-url and the other mapping options are for json feeds; "
                                            + "\(name) is \(record.registration.kind.rawValue)")
                }
                try check(changed, context: context)
                try store.setExpressions(feed: name, changed.expressions)
            }
            if let every { try store.setEvery(feed: name, every) }
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli feeds remove NAME`: the feed and its entries.
    public static func removeFeed(named name: String, context: CommandContext) -> Int32 {
        do {
            let store = try context.openStore()
            _ = try store.feed(named: name)
            let lock = try store.lock(feed: name)
            try store.removeFeed(named: name)
            _ = lock
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli status [FEED]` and `feedcli feeds list` (`detailed`): each feed's state through
    /// the reactor. `feeds list` (`hintsWhenBare`) on a store with no feed but the built-in one
    /// says, in plain output, how to add one. `preamble` goes first (bare `feedcli`'s usage).
    public static func status(
        feeds: [String], hintsWhenBare: Bool = false, detailed: Bool = false, preamble: String = "", context: CommandContext
    ) -> Int32 {
        paging(context) { context in
            statusNow(feeds: feeds, hintsWhenBare: hintsWhenBare, detailed: detailed, preamble: preamble, context: context)
        }
    }

    private static func statusNow(
        feeds: [String], hintsWhenBare: Bool, detailed: Bool, preamble: String, context: CommandContext
    ) -> Int32 {
        do {
            let state = try runReactor(.loadStatus(feeds: feeds), context: context, access: .readOnly)
            if let failure = FeedFailure.mostSerious(state.failures) { throw failure }
            let statuses = state.feeds.keys.sorted().compactMap { state.feeds[$0] }
            do throws(OutputError) {
                if !preamble.isEmpty { try context.stdout.write(preamble) }
                // `status` is the one-line-a-feed overview; `feeds list` the details.
                try context.stdout.write(context.format == .plain && !detailed
                                         ? StatusOverview.render(statuses, now: context.now(), width: context.stdout.columns)
                                         : StatusRenderer.render(statuses, format: context.format))
                if hintsWhenBare, context.format == .plain, statuses.allSatisfy({ $0.name == FeedRegistration.defaultFeed.name }) {
                    try context.stdout.write("\nNo feeds of your own yet. Add one: feedcli feeds add NAME URL"
                                             + " (the kind is found out when --kind is left out)\n")
                }
                return 0
            } catch {
                return finishReading(error, context: context)
            }
        } catch {
            return fail(error, context: context)
        }
    }

    // MARK: wiring

    /// The entries an id or handle names (of `feed` when given): at least one, else 66.
    private static func storedEntries(_ reference: String, feed: String?, context: CommandContext) throws -> [Entry] {
        let store = try context.openStore(access: .readOnly)
        if let feed { _ = try store.feed(named: feed) }
        let entries = try store.entries(id: reference, feed: feed)
        guard !entries.isEmpty else {
            throw FeedFailure.notFound("no entry \(reference)" + (feed.map { " in feed \($0)" } ?? ""))
        }
        return entries
    }

    /// Opens the store, runs one action through a fresh reactor, and tears the HTTP client down
    /// before returning (so no curl handle outlives the command).
    package static func runReactor(
        _ action: FeedAction, context: CommandContext, output: any EntryOutput = EntryPrinter(
            format: .plain, layout: .list, sink: BufferSink()), access: FeedStore.Access = .readWrite,
        progress: ProgressLine? = nil
    ) throws -> FeedReactorState {
        let store = try context.openStore(access: access)
        guard access == .readWrite else {
            let environment = FeedEnvironment(store: store, fetcher: OfflineFetcher(), output: output, now: context.now)
            return ReactorHost(reactor: FeedReactor(environment: environment)).run(action)
        }
        // As many feeds at once as the descriptor limit carries (a clear 78 when not one can run).
        var options = context.fetch
        options.jobs = try DescriptorBudget.jobs(options.jobs)
        let state = try withHTTPClient(context) { http in
            let environment = FeedEnvironment.live(
                store: store, http: http, options: options, output: output, scheduler: context.scheduler,
                now: context.now, environment: context.environment, logger: context.logger, progress: progress,
                onStep: context.onStep)
            return ReactorHost(reactor: FeedReactor(environment: environment)).run(action)
        }
        store.boundJournal()
        progress?.clear()
        return state
    }

    /// Runs `body` with a fresh HTTP client that Ctrl-C aborts, and frees every curl handle
    /// before returning.
    private static func withHTTPClient<T>(_ context: CommandContext, _ body: (HTTPClient) throws -> T) throws -> T {
        let http: HTTPClient
        do {
            http = try context.makeHTTPClient()
        } catch {
            throw FeedFailure(error, url: nil)
        }
        defer { http.shutdown() }
        context.interruption.onTrigger { http.shutdown() }
        return try body(http)
    }

    /// The exit status of a run that stopped as a whole (interrupted, output gone, store
    /// unusable), after saying why on stderr; nil when it ran to its end.
    private static func runFailure(_ state: FeedReactorState, context: CommandContext) -> Int32? {
        if context.interruption.isTriggered || state.failure == .interrupted { return FeedFailure.interrupted.exitCode }
        guard let failure = state.failure else { return nil }
        context.report(failure)
        return failure.exitCode
    }

    /// One stderr line for each warning and each feed that failed, by name.
    private static func reportFeedFailures(_ state: FeedReactorState, context: CommandContext) {
        for name in state.feeds.keys.sorted() {
            for warning in state.feeds[name]?.warnings ?? [] { context.warn(warning, feed: name) }
            if let failure = state.feeds[name]?.failure { context.report(failure, feed: name) }
        }
    }

    /// `list`, `show` and `status` end quietly (0) when the reader has gone (`| head`); any other
    /// failed write is 74.
    /// Runs a reading command with its stdout through a pager when one applies (see `Pager`),
    /// and waits for the user to quit it.
    private static func paging(_ context: CommandContext, _ body: (CommandContext) -> Int32) -> Int32 {
        guard let pager = Pager.forStdout(context.stdout, plain: context.format == .plain, environment: context.environment) else { return body(context) }
        var paged = context
        paged.stdout = pager
        let status = body(paged)
        do throws(OutputError) {
            try pager.finish()
        } catch {
            return status == 0 ? finishReading(error, context: context) : status
        }
        return status
    }

    package static func finishReading(_ failure: OutputError?, context: CommandContext) -> Int32 {
        guard let failure, !failure.readerIsGone else { return 0 }
        return fail(FeedFailure.output("cannot write to stdout (\(failure))"), context: context)
    }

    package static func fail(_ error: any Error, context: CommandContext) -> Int32 {
        let failure = FeedFailure.wrap(error)
        if failure == .interrupted || context.interruption.isTriggered { return FeedFailure.interrupted.exitCode }
        context.report(failure)
        return failure.exitCode
    }
}

extension FeedCommands {
    /// Feed names starting with `prefix`, for shell completion: read from the store named by
    /// `--state` in `arguments` (else the default store), never creating one. Completion must
    /// never fail loudly, so any problem completes nothing.
    public static func feedNames(completing prefix: String, arguments: [String], environment: [String: String]) -> [String] {
        var path = CommandContext.defaultStatePath(environment: environment)
        if let flag = arguments.firstIndex(of: "--state"), flag + 1 < arguments.count { path = arguments[flag + 1] }
        guard FileManager.default.fileExists(atPath: path),
              let store = try? FeedStore.open(at: path, wait: .zero, access: .readOnly),
              let feeds = try? store.feeds()
        else { return [] }
        return feeds.map(\.name).filter { $0.hasPrefix(prefix) }
    }
}
