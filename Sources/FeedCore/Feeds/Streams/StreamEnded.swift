/// The server ended a stream for good (HTTP 204): no reconnection.
package struct StreamEnded: Error, Sendable, CustomStringConvertible {
    package var url: String
    package var description: String { "\(url) ended the stream (HTTP 204): not reconnecting" }
}
