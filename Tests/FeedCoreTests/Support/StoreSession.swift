import Foundation
import Testing

/// feedcli runs on one temporary store, as the end-to-end suites use it.
struct StoreSession {
    let state: String

    /// A session on a new SQLite store, or on `state` (a PostgreSQL database's URL).
    init(state: String = temporaryStorePath()) {
        self.state = state
    }

    /// A session on a new PostgreSQL database of the test cluster.
    static func onPostgres() throws -> StoreSession {
        StoreSession(state: try PostgresDatabases.fresh())
    }

    func feedcli(_ arguments: String...) throws -> FeedcliRun { try run(arguments) }

    func run(_ arguments: [String]) throws -> FeedcliRun {
        try Feedcli.run(Feedcli.onStore(state, arguments))
    }

    func add(_ name: String, _ url: String, kind: String) throws {
        let run = try feedcli("feeds", "add", name, url, "--kind", kind)
        if run.status != 0 { throw FeedAddFailed(stderr: run.stderr) }
    }

    /// The feed's object in `status --json`.
    func status(_ feed: String) throws -> [String: Any]? {
        (try feedcli("status", feed, "--json").json as? [[String: Any]])?.first
    }

    /// The feed's object in `status --json`; the test fails when there is none.
    func requireStatus(_ feed: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try status(feed), sourceLocation: sourceLocation)
    }

    /// A session with one synced `linked` feed `l` whose one entry `a` links to
    /// `https://example.com/a` (for `open`); the server lives as long as the returned value.
    static func withOneEntryToOpen() throws -> (StoreSession, LoopbackServer) {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"[{"id":"a","html_url":"https://example.com/a"}]"#)
        }
        let session = StoreSession()
        try session.add("l", server.baseURL + "/l", kind: "linked")
        let synced = try session.feedcli("sync", "l")
        if synced.status != 0 { throw FeedAddFailed(stderr: synced.stderr) }
        return (session, server)
    }

    struct FeedAddFailed: Error {
        var stderr: String
    }
}
