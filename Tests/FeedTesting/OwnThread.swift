import FeedBase
import Foundation

/// Runs `body`, which blocks (a whole reactor run, a child process, a lock wait), on a thread of
/// its own and awaits its result, so the test's cooperative thread serves other tests meanwhile.
public func onOwnThread<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
        Thread {
            continuation.resume(returning: Result { () throws(Failure) -> Value in try body() })
        }.start()
    }
    return try result.get()
}

extension Sequence {
    /// The results of `transform` on each element, awaited one after the other, in order.
    public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

extension Process {
    /// Runs the process and awaits its exit, reading what it writes to a `Pipe` set as its
    /// standard output on a thread of its own; that output is returned. A process still running
    /// after `seconds` is killed (a hang fails its test, not the suite).
    @discardableResult
    public func runToExit(seconds: Double = 300) async throws -> Data {
        let exited = TestSignal()
        let read = TestSignal()
        let output = Locked(Data())
        terminationHandler = { _ in exited.signal() }
        let pipe = standardOutput as? Pipe
        try run()
        if let handle = pipe?.fileHandleForReading {
            Thread {
                let data = handle.readDataToEndOfFile()
                output.withLock { $0 = data }
                read.signal()
            }.start()
        } else {
            read.signal()
        }
        if await !exited.wait(seconds: seconds) {
            kill(processIdentifier, SIGKILL)
            _ = await exited.wait(seconds: 10)
        }
        _ = await read.wait(seconds: 30)
        return output.value
    }
}
