import FeedHTTP
import FeedKinds
import FeedModel
import FeedReactive
import FeedReactor
import FeedRendering
import FeedStore
import FeedStoreContract
import FeedTerminal
import FoundationEssentials

/// What several commands do with their context: run the reactor, read stored entries, stream a
/// document to stdout, page it, and turn failures into exit statuses.
extension CommandContext {
    /// Opens the store, runs one action through a fresh reactor printing to `output`, and tears
    /// the HTTP client down before returning (so no curl handle outlives the command).
    /// `watch` sees every state of the run as it happens (`follow`'s health lines).
    func runReactor(
        _ action: FeedAction, output: any EntryOutput, progress: ProgressLine?,
        stop: Observable<Void> = Subject<Void>().observable,
        watch: (@Sendable (FeedReactorState) -> Void)? = nil
    ) throws -> FeedReactorState {
        let (state, store) = try withHTTPClient { http in
            let store = try openStore()
            // As many feeds at once as the descriptor limit carries (a clear 78 when not one can run).
            var options = fetch
            options.jobs = try DescriptorBudget.jobs(options.jobs)
            options.busyWait = wait
            let ports = reactorPorts(store, output)
            let environment = FeedEnvironment.live(
                store: ports.store, http: http, options: options, output: ports.output, scheduler: interruptibleWaits(),
                now: now, environment: environment, logger: logger, progress: progress, stop: stop)
            let host = ReactorHost(reactor: FeedReactor(environment: environment))
            let watching = watch.map { host.state.subscribe(onNext: $0) }
            defer { watching?.dispose() }
            return (host.run(action), store)
        }
        store.finish()
        progress?.clear()
        return state
    }

    /// The feeds' state as the store has it, through the reactor, without the network and
    /// without creating a store.
    func loadStatus(feeds: [String]) throws -> FeedReactorState {
        let store = try openStore(access: .readOnly)
        let environment = FeedEnvironment(store: store, fetcher: OfflineFetcher(), output: NoDelivery(), now: now)
        return ReactorHost(reactor: FeedReactor(environment: environment)).run(.loadStatus(feeds: feeds))
    }

    /// Runs `body` with a fresh HTTP client that Ctrl-C aborts, and frees every curl handle
    /// before returning.
    func withHTTPClient<T>(_ body: (HTTPClient) throws -> T) throws -> T {
        let http: HTTPClient
        do {
            http = try makeHTTPClient()
        } catch {
            throw FeedFailure(error, url: nil)
        }
        defer { http.shutdown() }
        interruption.onTrigger { http.shutdown() }
        return try body(http)
    }

    /// The context's scheduler with its waits cut short by Ctrl-C and SIGTERM (a retry's
    /// backoff, a Retry-After): a run then ends at once with its own status, not at the wait's
    /// end (or the signal handler's 2-second last resort).
    func interruptibleWaits() -> InterruptibleScheduler {
        let waits = InterruptibleScheduler(scheduler)
        interruption.onTrigger { waits.interrupt() }
        return waits
    }

    /// Where a command's new entries go: to the `--exec` command when one was given, else to
    /// `printer`.
    func entryOutput(_ printer: EntryPrinter, exec: ExecOptions?) -> any EntryOutput {
        guard let command = exec?.exec, let timeout = exec?.timeout else { return printer }
        return ExecOutput(
            command: EntryCommand(command: command, timeout: timeout, environment: environment),
            interruption: interruption)
    }

    /// Ends the printer's output (a JSON array's `]`) unless the output itself failed; a failed
    /// write now is 74, everything printed having been committed.
    func finishPrinting(_ printer: EntryPrinter, after state: FeedReactorState) throws {
        if case .output? = state.failure { return }
        do throws(OutputError) {
            try printer.finish()
        } catch {
            throw FeedFailure.output("cannot write to stdout (\(error)); every entry printed was committed")
        }
    }

    /// The exit status of a run that stopped as a whole (interrupted, output gone, store
    /// unusable), after saying why on stderr; nil when it ran to its end.
    func runFailure(_ state: FeedReactorState) -> Int32? {
        if interruption.isTriggered || state.failure == .interrupted { return FeedFailure.interrupted.exitCode }
        guard let failure = state.failure else { return nil }
        report(failure)
        return failure.exitCode
    }

    /// One stderr line for each warning and each feed that failed, by name.
    func reportFeedFailures(_ state: FeedReactorState) {
        for name in state.feeds.keys.sorted() {
            for warning in state.feeds[name]?.warnings ?? [] { warn(warning, feed: name) }
            // A "no such feed" failure names the feed itself: `feedcli: no feed named x`, not
            // `feedcli: x: no feed named x`.
            if let failure = state.feeds[name]?.failure {
                if case .notFound = failure { report(failure) } else { report(failure, feed: name) }
            }
        }
    }

    /// The entries an id or handle names (of `feed` when given): at least one, else 66.
    func storedEntries(_ reference: String, feed: String?) throws -> [Entry] {
        let store = try openStore(access: .readOnly)
        if let feed { _ = try store.feed(named: feed) }
        let entries = try store.entries(id: reference, feed: feed)
        guard !entries.isEmpty else {
            throw FeedFailure.notFound("no entry \(reference)" + (feed.map { " in feed \($0)" } ?? ""))
        }
        return entries
    }

    /// Runs a reading command (`list`, `show`, `status`) with its stdout through a pager when one
    /// applies (see `Pager`), and waits for the user to quit it. What `body` throws is reported
    /// here, before the pager ends, so that nothing it held is lost.
    func paging(_ body: (CommandContext) throws -> Int32) -> Int32 {
        guard let pager = Pager.forStdout(stdout, plain: format == .plain, environment: environment) else {
            do { return try body(self) } catch { return fail(error) }
        }
        var paged = self
        paged.stdout = pager
        let status: Int32
        do { status = try body(paged) } catch { status = fail(error) }
        do throws(OutputError) {
            try pager.finish()
        } catch {
            return status == 0 ? finishReading(error) : status
        }
        return status
    }

    /// Streams a document to stdout through a 64 KiB buffer: `begin`, the parts `produce` hands
    /// to `each` (which says whether to go on), then `end()`. A reader that leaves ends it
    /// quietly (0); any other failed write is 74.
    func stream(
        begin: [UInt8], end: () -> [UInt8],
        _ produce: (_ each: (_ render: (inout [UInt8]) -> Void) -> Bool) throws -> Void
    ) throws -> Int32 {
        var output = OutputBuffer(sink: stdout)
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
        return finishReading(failure)
    }

    /// Writes a reading command's whole output; its status as `finishReading` gives it.
    func writeReading(_ bytes: [UInt8]) -> Int32 {
        do throws(OutputError) {
            try stdout.write(bytes)
            return 0
        } catch {
            return finishReading(error)
        }
    }

    /// `list`, `show`, `status` and the exports end quietly (0) when the reader has gone (`| head`);
    /// any other failed write is 74.
    func finishReading(_ failure: OutputError?) -> Int32 {
        guard let failure, !failure.readerIsGone else { return 0 }
        return fail(FeedFailure.output("cannot write to stdout (\(failure))"))
    }

    /// The exit status `error` means, said on stderr; 130 when the run was interrupted.
    func fail(_ error: any Error) -> Int32 {
        let failure = FeedFailure.wrap(error)
        if failure == .interrupted || interruption.isTriggered { return FeedFailure.interrupted.exitCode }
        report(failure)
        return failure.exitCode
    }
}

/// The output of a run that delivers nothing (`status`): it reads the store and never prints an
/// entry, so a delivery would be a mistake, and takes nothing.
private struct NoDelivery: EntryOutput {
    func deliver(_ entries: [Entry]) -> DeliveryReport {
        DeliveryReport(delivered: 0, failure: .interrupted)
    }
}
