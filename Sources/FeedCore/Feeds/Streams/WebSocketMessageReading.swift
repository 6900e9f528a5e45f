import FoundationEssentials

/// How a WebSocket kind reads its connection's text messages into `StreamSignal`s, one message
/// at a time, in order (`Jetstream`, `Nostr`). A reader is made for each connection from the
/// stored position, and keeps the position the messages move it to: each signal carries it as
/// its `lastEventID`, so the batch that commits it stores the largest one seen.
package protocol WebSocketMessageReading: Sendable {
    /// The signals of one message, the `number`th of the connection (skipped ones are named by it).
    mutating func signals(of message: [UInt8], number: Int, now: Date) -> [StreamSignal]
}
