import FeedTesting
import Foundation
import Testing

/// feedcli runs on one temporary store, as the end-to-end suites use it.
public struct StoreSession {
    public let state: String

    /// A session on a new SQLite store, or on `state` (a PostgreSQL database's URL).
    public init(state: String = temporaryStorePath()) {
        self.state = state
    }

    /// A session on a new PostgreSQL database of the test cluster.
    public static func onPostgres() async throws -> StoreSession {
        StoreSession(state: try await PostgresDatabases.fresh())
    }

    public func feedcli(_ arguments: String...) async throws -> FeedcliRun { try await run(arguments) }

    public func run(_ arguments: [String]) async throws -> FeedcliRun {
        try await Feedcli.run(Feedcli.onStore(state, arguments))
    }

    /// `feeds add NAME URL --kind KIND` and `options`; throws what it said when it fails.
    public func add(_ name: String, _ url: String, kind: String, _ options: String...) async throws {
        let run = try await run(["feeds", "add", name, url, "--kind", kind] + options)
        if run.status != 0 { throw FeedAddFailed(stderr: run.stderr) }
    }

    /// The feed's object in `status --json`.
    public func status(_ feed: String) async throws -> [String: Any]? {
        await (try feedcli("status", feed, "--json").json as? [[String: Any]])?.first
    }

    /// The feed's object in `status --json`; the test fails when there is none.
    public func requireStatus(_ feed: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> [String: Any]
    {
        try #require(try await status(feed), sourceLocation: sourceLocation)
    }

    /// A session with one synced `linked` feed `l` whose one entry `a` links to
    /// `https://example.com/a` (for `open`); the server lives as long as the returned value.
    public static func withOneEntryToOpen() async throws -> (StoreSession, LoopbackServer) {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"[{"id":"a","html_url":"https://example.com/a"}]"#)
        }
        let session = StoreSession()
        try await session.add("l", server.baseURL + "/l", kind: "linked")
        let synced = try await session.feedcli("sync", "l")
        if synced.status != 0 { throw FeedAddFailed(stderr: synced.stderr) }
        return (session, server)
    }

    public struct FeedAddFailed: Error {
        public var stderr: String

        public init(stderr: String) { self.stderr = stderr }
    }
}
