import FeedHTTP
import FoundationEssentials

/// What a stream's connection tells the feed, in order, as its reader cuts the wire apart.
package enum StreamSignal: Sendable {
    /// The server answered with a stream (a 2xx of the right `Content-Type`).
    case connected(HTTPResponse)
    /// An event that is an item: its data is a JSON object.
    case item(StreamItem)
    /// An event that is not an item (another SSE type, data that is not a JSON object, one
    /// larger than `--max-size`), with why: `-v` says so.
    case ignored(why: String, lastEventID: String?)
    /// A line of an NDJSON stream that should have been an item and is not (not JSON, not an
    /// object, nested too deep, larger than `--max-size`): a skipped item, named on stderr with
    /// its line number on the connection and why.
    case skipped(line: Int, why: String)
    /// The server's `retry:`: the time to wait before reconnecting.
    case retry(Duration)
    /// Something the server (or the reader) has to tell the user, said on stderr: a relay's
    /// `NOTICE`, a replay that did not reach back to the stored position.
    case notice(String)
    /// The server has sent every stored event (a relay's `EOSE`): `sync` ends its read here.
    case endOfReplay
    /// The server ended the feed for good, in its words (a relay's `CLOSED`): the feed fails
    /// with 69 once what came before is delivered.
    case closed(why: String)
}

/// One item of a stream: the JSON text of an event's data (or of a line) and the stream's last
/// event id after it (SSE; nil for NDJSON and for a server that sends none).
package struct StreamItem: Sendable {
    package var json: [UInt8]
    package var lastEventID: String?
    package var arrivedAt: Date
}
