/// The commands, as functions from a context to an exit status. The CLI parses arguments and calls
/// these; everything they do is testable without a process.
public enum FeedCommands {
    /// `feedcli next [FEED]`: prints the oldest unread entry (fetching when none is unread) and
    /// marks it read. 0 when one was printed, 1 when there was none, else the failure's code.
    public static func next(feed: String, context: CommandContext) -> Int32 {
        let state: FeedReactorState
        switch perform(.next(feed: feed), context: context) {
        case .success(let outcome): state = outcome
        case .failure(let status): return status.code
        }
        if let entry = state.delivered.first {
            switch context.format {
            case .plain: context.stdout.write(EntryRenderer.plain(entry))
            case .json, .jsonl: context.stdout.write(bytes: EntryRenderer.json(entry) + [0x0A])
            }
            context.stdout.flush()
            return 0
        }
        if let failure = FeedFailure.mostSerious(state.failures) {
            context.report(failure, feed: failure == state.failure ? nil : feed)
            return failure.exitCode
        }
        return 1
    }

    /// `feedcli sync [FEED…]`: prints the new entries of every named feed (all when none), goes on
    /// past failing feeds (one stderr line each) and exits with the most serious failure's code.
    /// Entries are printed as each feed's are committed (bound to the state stream), so a slow
    /// or failing feed later in the list does not hold back what is already stored.
    public static func sync(feeds: [String], context: CommandContext) -> Int32 {
        let printer = EntryStreamPrinter(format: context.format, sink: context.stdout)
        let state: FeedReactorState
        switch perform(.sync(feeds: feeds), context: context, onState: { printer.catchUp(with: $0.newEntries) }) {
        case .success(let outcome): state = outcome
        case .failure(let status): return status.code
        }
        printer.catchUp(with: state.newEntries)
        printer.end()
        for name in state.feeds.keys.sorted() {
            if let failure = state.feeds[name]?.failure { context.report(failure, feed: name) }
        }
        if let failure = state.failure { context.report(failure) }
        return FeedFailure.mostSerious(state.failures)?.exitCode ?? 0
    }

    /// `feedcli list [FEED]`: streams stored entries, oldest first; no network.
    public static func list(feed: String?, unreadOnly: Bool, limit: Int?, context: CommandContext) -> Int32 {
        do {
            let store = try FeedStore.open(at: context.statePath, wait: context.wait)
            if let feed { _ = try store.registration(named: feed) }
            var writer = EntryListWriter(format: context.format, sink: context.stdout)
            try store.forEachEntry(feed: feed, unreadOnly: unreadOnly, limit: limit) { entry in
                writer.add(entry)
                return !context.stdout.isClosed  // `| head` has what it wants
            }
            writer.end()
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli show ID [--feed FEED]`: the stored entry (every feed's entry with that id when no
    /// feed is named).
    public static func show(id: String, feed: String?, context: CommandContext) -> Int32 {
        do {
            let store = try FeedStore.open(at: context.statePath, wait: context.wait)
            if let feed { _ = try store.registration(named: feed) }
            let entries = try store.entries(id: id, feed: feed)
            guard !entries.isEmpty else {
                throw FeedFailure.notFound("no entry \(id)" + (feed.map { " in feed \($0)" } ?? ""))
            }
            switch context.format {
            case .plain:
                var writer = EntryListWriter(format: .plain, sink: context.stdout, detailed: true)
                for entry in entries { writer.add(entry) }
                writer.end()
            case .json where entries.count == 1:
                context.stdout.write(bytes: EntryRenderer.json(entries[0]) + [0x0A])
            case .json, .jsonl:
                var writer = EntryListWriter(format: context.format, sink: context.stdout)
                for entry in entries { writer.add(entry) }
                writer.end()
            }
            context.stdout.flush()
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli feeds add NAME URL --kind KIND [--replace] [--token-env VAR]`.
    public static func addFeed(_ feed: FeedRegistration, replace: Bool, context: CommandContext) -> Int32 {
        do {
            guard FeedRegistration.isValidName(feed.name) else {
                throw FeedFailure.usage("feed names use letters, digits, '.', '-' and '_' (at most 64): \(feed.name)")
            }
            guard FeedRegistration.isValidURL(feed.url) else {
                throw FeedFailure.configuration("not an http or https URL: \(feed.url)")
            }
            try FeedStore.open(at: context.statePath, wait: context.wait).addFeed(feed, replace: replace)
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli feeds remove NAME`: the feed and its entries.
    public static func removeFeed(named name: String, context: CommandContext) -> Int32 {
        do {
            let store = try FeedStore.open(at: context.statePath, wait: context.wait)
            let lock = try store.lock(feed: name)
            try store.removeFeed(named: name)
            _ = lock
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    /// `feedcli status [FEED]` and `feedcli feeds list`: each feed's state through the reactor.
    public static func status(feeds: [String], context: CommandContext) -> Int32 {
        do {
            let state = try runReactor(.loadStatus(feeds: feeds), context: context, needsNetwork: false)
            if let failure = FeedFailure.mostSerious(state.failures) { throw failure }
            let statuses = state.feeds.keys.sorted().compactMap { state.feeds[$0] }
            StatusRenderer.render(statuses, format: context.format, sink: context.stdout)
            return 0
        } catch {
            return fail(error, context: context)
        }
    }

    // MARK: wiring

    private struct ExitStatus: Error {
        let code: Int32
    }

    /// Runs a fetching action; fails with the exit status when the command must end without
    /// rendering (the store could not be opened, or the user interrupted).
    private static func perform(
        _ action: FeedAction, context: CommandContext, onState: (@Sendable (FeedReactorState) -> Void)? = nil
    ) -> Result<FeedReactorState, ExitStatus> {
        do {
            let state = try runReactor(action, context: context, onState: onState)
            if context.interruption.isTriggered { return .failure(ExitStatus(code: FeedFailure.interrupted.exitCode)) }
            return .success(state)
        } catch {
            return .failure(ExitStatus(code: fail(error, context: context)))
        }
    }

    /// Opens the store, runs one action through a fresh reactor, and tears the HTTP client down
    /// before returning (so no curl handle outlives the command).
    static func runReactor(
        _ action: FeedAction, context: CommandContext, needsNetwork: Bool = true,
        onState: (@Sendable (FeedReactorState) -> Void)? = nil
    ) throws -> FeedReactorState {
        let store = try FeedStore.open(at: context.statePath, wait: context.wait)
        let http: HTTPClient
        do {
            http = try context.makeHTTPClient()
        } catch {
            throw FeedFailure(error, url: nil)
        }
        defer { http.shutdown() }
        context.interruption.onTrigger { http.shutdown() }
        let environment = FeedEnvironment(
            store: store, http: http, options: context.fetch, scheduler: context.scheduler, now: context.now,
            environment: context.environment, logger: context.logger)
        let host = ReactorHost(reactor: FeedReactor(environment: environment))
        let progress = context.showsProgress && needsNetwork ? ProgressLine(sink: context.stderr) : nil
        let observing = host.state.subscribe(onNext: { state in
            if let onState {
                progress?.clear()
                onState(state)
            }
            progress?.update(state)
        })
        let state = host.run(action)
        observing.dispose()
        progress?.clear()
        return state
    }

    private static func fail(_ error: any Error, context: CommandContext) -> Int32 {
        let failure = FeedFailure.wrap(error)
        context.report(failure)
        return failure.exitCode
    }
}
