import FeedModel

/// How much of one write the reader took, and why it took no more.
public struct TakenReport: Sendable, Equatable {
    public enum Failure: Sendable, Equatable {
        /// The write failed, or the reader went away with bytes unread.
        case output(OutputError)
        /// `stop` became true first.
        case stopped
    }

    /// The first `taken` bytes are the reader's.
    public var taken: Int
    /// The first `written` bytes were written (into a pipe: taken, or waiting there).
    public var written: Int
    public var failure: Failure?

    public init(taken: Int, written: Int, failure: Failure? = nil) {
        self.taken = taken
        self.written = written
        self.failure = failure
    }

    /// The report of a plain write of `count` bytes.
    package init(writingAll count: Int, _ write: () throws(OutputError) -> Void) {
        do throws(OutputError) {
            try write()
            self.init(taken: count, written: count)
        } catch {
            self.init(taken: error.written, written: error.written, failure: .output(error))
        }
    }
}
