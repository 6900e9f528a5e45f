import FeedTesting
import Foundation
import Testing

@testable import FeedHTTP
@testable import FeedKinds
@testable import FeedModel
@testable import FeedReactive

/// A stream feed's WebSocket connection as the fetcher makes it (`FeedFetcher.webSocket`): the
/// token goes to the feed URL's own origin only, and an unset token variable fails before any
/// connection, as for every request.
@Suite("WebSocket connections of the fetcher", .timeLimit(.minutes(2)))
struct WebSocketFetchTests {
    /// What the server at `url` said the connection's Authorization was, for a feed at `feedURL`.
    private func authorization(_ url: String, feedURL: String, environment: [String: String], tokenEnv: String? = nil)
        async throws -> (said: String?, error: (any Error)?)
    {
        let http = try HTTPClient()
        defer { http.shutdown() }
        let fetcher = FeedFetcher(
            http: http, workQueue: DispatchQueue(label: "test.work"), options: FetchOptions(),
            scheduler: DispatchScheduler(), random: { 0 }, environment: environment, logger: .init(label: "test"))
        var feed = FeedRegistration(name: "w", url: feedURL, kind: .sse)
        feed.tokenEnv = tokenEnv
        let recorder = Recorder<WebSocketPart>()
        let subscription = fetcher.webSocket(
            url, feed: feed, greeting: [], idleTimeout: .seconds(5), pongWait: .seconds(10)
        ).subscribe(recorder.handler)
        await recorder.wait(seconds: 20)
        subscription.dispose()
        let said = recorder.elements.compactMap { part -> String? in
            guard case .messages(let messages, _) = part, let first = messages.first else { return nil }
            return String(decoding: first, as: UTF8.self)
        }.first
        return (said, recorder.error)
    }

    @Test func theTokenGoesToTheFeedsOwnOriginOnly() async throws {
        let server = try await PythonServer.webSockets()
        let own = "ws://127.0.0.1:\(server.port)/headers"
        let mine = try await authorization(own, feedURL: own, environment: ["FEEDCLI_TOKEN": "s3cret"])
        #expect(mine.said == "Bearer s3cret", "\(String(describing: mine.error))")
        // Another origin (localhost is not 127.0.0.1): no token.
        let other = "ws://localhost:\(server.port)/headers"
        #expect(try await authorization(other, feedURL: own, environment: ["FEEDCLI_TOKEN": "s3cret"]).said == "none")
        let unset = try await authorization(own, feedURL: own, environment: [:], tokenEnv: "JETSTREAM_TOKEN")
        #expect((unset.error as? FeedFailure)?.exitCode == 78)
        #expect(unset.said == nil, "nothing was connected")
    }
}
