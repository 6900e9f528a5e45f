import CCurl
import Dispatch
import FeedBase
import FeedReactive
import FoundationEssentials
import Glibc
import Synchronization

/// The thread that owns a curl multi handle and runs every transfer of one `HTTPClient`.
///
/// Thread contract: every curl call on the multi handle and its easy handles happens on this
/// thread. Other threads only append commands to the inbox and call `curl_multi_wakeup`, the one
/// multi call libcurl documents as safe from any thread. That is what makes cancellation prompt:
/// a dispose wakes `curl_multi_poll` at once and the handle is removed within milliseconds, even
/// while the server sends nothing.
///
/// The multi handle's connection cache gives keep-alive across requests, and
/// `CURLMOPT_MAX_HOST_CONNECTIONS` caps transfers per host (curl queues the rest). Easy handles
/// of finished transfers are reset and kept for the next ones (up to `idleHandles`): a new
/// handle is a large zeroed allocation, which a sync of 1,000 posts would otherwise pay per post.
package final class CurlWorker: Sendable {
    /// What a request hears when the client shut down before it ended.
    package static let shutDown = HTTPError(.cancelled, message: "the HTTP client shut down")

    private enum Command {
        case start(id: Int, request: HTTPRequest, delivery: CurlTransfer.Delivery)
        case cancel(id: Int)
    }

    private struct Inbox: ~Copyable {
        var commands: [Command] = []
        var nextID = 0
        var isShuttingDown = false
        /// A wake-up was sent that the worker has not answered yet (it clears this when it takes
        /// the commands): commands added meanwhile ride on it, so a burst of requests costs one
        /// wake-up, not one each.
        var isWakePending = false
    }

    /// The multi handle's address, shareable so other threads can call `curl_multi_wakeup`.
    /// @unchecked Sendable invariant: off the worker thread the pointer is only passed to
    /// `curl_multi_wakeup` (thread-safe since 7.68), and only from `wake(_:)`, with the inbox
    /// locked and `isShuttingDown` false. The worker cleans the handle up only after reading
    /// `isShuttingDown` true under that same lock, so no other thread can touch it afterwards.
    private struct MultiHandle: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer
    }

    /// How many reset easy handles the worker keeps for reuse.
    package static let idleHandles = 8

    private let multi: MultiHandle
    private let inbox = Mutex(Inbox())
    private let userAgent: String
    private let finished = DispatchSemaphore(value: 0)
    private let isDone = Atomic<Bool>(false)
    /// The worker thread's `pthread_self()`, set as it starts (0 before): which thread is asking
    /// is checked on every wake-up, and comparing it is far cheaper than asking for a name.
    private let workerThread = Atomic<UInt>(0)

    package init(userAgent: String, maxConnectionsPerHost: Int) throws(HTTPError) {
        CurlGlobal.initialize()
        guard let raw = curl_multi_init() else { throw HTTPError(.other, message: "curl_multi_init failed") }
        _ = feed_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        _ = feed_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, max(8, maxConnectionsPerHost * 4))
        multi = MultiHandle(raw: raw)
        self.userAgent = userAgent
        if let code = DetachedThread.start(named: "feedcli.curl", { [self] in self.run() }) {
            throw HTTPError(.other, message: "cannot start the HTTP thread: \(String(cString: strerror(code)))")
        }
    }

    /// Queues a transfer; its outcome goes to `delivery`'s observer on the worker thread.
    /// Returns its id.
    package func start(_ request: HTTPRequest, delivery: CurlTransfer.Delivery) -> Int? {
        inbox.withLock { inbox -> Int? in
            guard !inbox.isShuttingDown else { return nil }
            defer { inbox.nextID += 1 }
            inbox.commands.append(.start(id: inbox.nextID, request: request, delivery: delivery))
            wake(&inbox)
            return inbox.nextID
        }
    }

    /// Aborts transfer `id` if it is still running; its observer hears nothing more.
    package func cancel(_ id: Int) {
        inbox.withLock { inbox in
            guard !inbox.isShuttingDown else { return }
            inbox.commands.append(.cancel(id: id))
            wake(&inbox)
        }
    }

    /// Aborts every transfer, frees every handle and ends the thread; every caller but the worker
    /// thread itself waits for that, not only the first (a second caller that returned at once
    /// let `main` exit while `curl_multi_cleanup` still ran). Idempotent.
    package func shutdown() {
        inbox.withLock { inbox in
            guard !inbox.isShuttingDown else { return }
            wake(&inbox)
            inbox.isShuttingDown = true
        }
        guard !isWorkerThread else { return }
        finished.wait()
        finished.signal()  // passed on: the next caller, and any after it, return at once
    }

    /// Whether the worker has freed every handle and ended.
    package var hasFinished: Bool { isDone.load(ordering: .acquiring) }

    /// Wakes the worker from `curl_multi_poll`. Called only with the inbox locked and before
    /// `isShuttingDown` is set: the worker reads that flag under the same lock before it cleans
    /// the multi handle up, so no wake-up can reach a freed handle. From the worker's own thread
    /// (a transfer started by a callback's observer) no wake-up is needed: it polls again anyway.
    /// Nor while one is pending: the worker clears `isWakePending` under the lock when it takes
    /// the commands, before it polls again, so a command added after that sends its own.
    private func wake(_ inbox: inout Inbox) {
        guard !inbox.isShuttingDown, !inbox.isWakePending, !isWorkerThread else { return }
        inbox.isWakePending = true
        curl_multi_wakeup(multi.raw)
    }

    private var isWorkerThread: Bool {
        workerThread.load(ordering: .relaxed) == UInt(pthread_self())
    }

    private func run() {
        workerThread.store(UInt(pthread_self()), ordering: .relaxed)
        var transfers: [Int: CurlTransfer] = [:]
        var ids: [UnsafeMutableRawPointer: Int] = [:]
        var idle: [UnsafeMutableRawPointer] = []

        var streams = 0

        func remove(_ id: Int) -> CurlTransfer? {
            guard let transfer = transfers.removeValue(forKey: id) else { return nil }
            if transfer.isStream { streams -= 1 }
            ids[transfer.easy] = nil
            curl_multi_remove_handle(multi.raw, transfer.easy)
            let handle = transfer.release()
            if idle.count < Self.idleHandles { idle.append(handle) } else { curl_easy_cleanup(handle) }
            return transfer
        }

        while true {
            let (commands, shuttingDown) = inbox.withLock { inbox in
                defer {
                    inbox.commands = []
                    inbox.isWakePending = false
                }
                return (inbox.commands, inbox.isShuttingDown)
            }
            if shuttingDown {
                // Requests queued with the shutdown were never started: they end here too, or
                // whoever waits on them would wait forever.
                for case .start(_, _, let delivery) in commands {
                    switch delivery {
                    case .whole(let observer): observer.fail(Self.shutDown)
                    case .stream(let observer, _): observer.fail(Self.shutDown)
                    }
                }
                break
            }
            for command in commands {
                switch command {
                case .start(let id, let request, let delivery):
                    do {
                        let transfer = try CurlTransfer(
                            request: request, userAgent: userAgent, delivery: delivery,
                            reusing: idle.popLast())
                        transfers[id] = transfer
                        ids[transfer.easy] = id
                        if transfer.isStream { streams += 1 }
                        curl_multi_add_handle(multi.raw, transfer.easy)
                    } catch {
                        switch delivery {
                        case .whole(let observer): observer.fail(error)
                        case .stream(let observer, _): observer.fail(error)
                        }
                    }
                case .cancel(let id):
                    _ = remove(id)
                }
            }

            var running: Int32 = 0
            curl_multi_perform(multi.raw, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi.raw, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE,
                    let easy = message.pointee.easy_handle,
                    let id = ids[easy]
                else { continue }
                let code = message.pointee.data.result
                guard let transfer = transfers[id] else { continue }
                let report = transfer.finish(code)
                _ = remove(id)
                report()
            }
            let pending = inbox.withLock { !$0.commands.isEmpty || $0.isShuttingDown }
            // While a stream runs, curl is asked four times a second, so that its silence is
            // measured (the transfer-info callback) within a quarter of a second.
            if !pending { curl_multi_poll(multi.raw, nil, 0, streams > 0 ? 250 : 1000, nil) }
        }

        for id in Array(transfers.keys) {
            remove(id)?.fail(Self.shutDown)
        }
        idle.forEach { curl_easy_cleanup($0) }
        curl_multi_cleanup(multi.raw)
        isDone.store(true, ordering: .releasing)
        finished.signal()
    }
}

/// `curl_global_init`, exactly once per process, before the first handle; OpenSSL initialized
/// first without its exit-time cleanup (`ProcessOpenSSL`).
package enum CurlGlobal {
    private static let once: Void = {
        ProcessOpenSSL.skipExitCleanup()
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    package static func initialize() { once }
}
