import FeedCore
import FeedModel
import FeedReactor
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// A feed's token and its URL's `user:password` reach only the feed URL's origin (contract,
/// Guarantees), whatever leads a request elsewhere: a next-page link of each paged kind, a
/// redirect, or a page reached through a redirect. `localhost` and `127.0.0.1` on one port are
/// two origins, so one loopback server plays both and tells them apart by `Host`.
@Suite("credentials stay with the feed's origin", .serialized, .timeLimit(.minutes(2)))
struct CredentialOriginTests {
    let session = StoreSession()

    /// Pages served at the feed's origin (`127.0.0.1:P`) link to `localhost:P` (or `127.0.0.1:Q`
    /// through a redirect); every request is recorded with its `Host` and `Authorization`.
    final class TwoOriginServer: Sendable {
        let server: LoopbackServer
        let otherPort: LoopbackServer
        var feedOrigin: String { "127.0.0.1:\(server.port)" }
        var requests: [LoopbackServer.Request] { server.requests + otherPort.requests }

        init() throws {
            let otherPort = try LoopbackServer { _, connection in
                connection.respond(200, headers: [("Content-Type", "application/json")], text: #"[{"id":"q1"}]"#)
            }
            self.otherPort = otherPort
            let other = otherPort.port
            server = try LoopbackServer { request, connection in
                let host = request.header("Host") ?? ""
                let port = host.split(separator: ":").last.map(String.init) ?? ""
                let elsewhere = "http://localhost:\(port)"
                let here = "http://127.0.0.1:\(port)"
                func json(_ text: String, _ headers: [(String, String)] = []) {
                    connection.respond(200, headers: headers + [("Content-Type", "application/json")], text: text)
                }
                switch request.path {
                // graph: a same-origin second page (the token goes on), then another origin.
                case "/graph": json(#"{"data":[{"id":"g1"}],"paging":{"next":"\#(here)/graph-2"}}"#)
                case "/graph-2": json(#"{"data":[{"id":"g2"}],"paging":{"next":"\#(elsewhere)/graph-3"}}"#)
                case "/graph-3": json(#"{"data":[{"id":"g3"}],"paging":{}}"#)
                case "/jsonfeed":
                    json(
                        #"{"version":"https://jsonfeed.org/version/1.1","title":"t","items":[{"id":"j1"}],"next_url":"\#(elsewhere)/jsonfeed-2"}"#
                    )
                case "/jsonfeed-2":
                    json(#"{"version":"https://jsonfeed.org/version/1.1","title":"t","items":[{"id":"j2"}]}"#)
                case "/linked": json(#"[{"id":"l1"}]"#, [("Link", #"<\#(elsewhere)/linked-2>; rel="next""#)])
                case "/linked-2": json(#"[{"id":"l2"}]"#)
                // A redirect to another origin, whose page links (relatively) to a second page there.
                case "/moved": connection.respond(302, headers: [("Location", "\(elsewhere)/moved-1")], text: "")
                case "/moved-1": json(#"[{"id":"m1"}]"#, [("Link", #"</moved-2>; rel="next""#)])
                case "/moved-2": json(#"[{"id":"m2"}]"#)
                // A redirect to the same host on another port.
                case "/port":
                    connection.respond(302, headers: [("Location", "http://127.0.0.1:\(other)/port-1")], text: "")
                default: connection.respond(404, text: "{}")
                }
            }
        }

        /// The requests for `paths`, split by whether they went to the feed's origin.
        func requests(for paths: Set<String>) -> (home: [LoopbackServer.Request], away: [LoopbackServer.Request]) {
            let relevant = requests.filter { paths.contains($0.path) }
            return (
                relevant.filter { $0.header("Host") == feedOrigin }, relevant.filter { $0.header("Host") != feedOrigin }
            )
        }
    }

    func sync(_ feed: String, environment: [String: String]) async throws -> FeedcliRun {
        try await Feedcli.run(Feedcli.onStore(session.state, ["sync", feed, "--jsonl"]), environment: environment)
    }

    @Test(arguments: [
        ("graph", "/graph", ["/graph", "/graph-2", "/graph-3"], ["g1", "g2", "g3"]),
        ("jsonfeed", "/jsonfeed", ["/jsonfeed", "/jsonfeed-2"], ["j1", "j2"]),
        ("linked", "/linked", ["/linked", "/linked-2"], ["l1", "l2"]),
        ("linked", "/moved", ["/moved", "/moved-1", "/moved-2"], ["m1", "m2"]),
        ("linked", "/port", ["/port", "/port-1"], ["q1"]),
    ])
    func theTokenGoesOnlyToTheFeedsOrigin(kind: String, path: String, paths: [String], ids: [String]) async throws {
        let server = try TwoOriginServer()
        try await session.add("f", "http://\(server.feedOrigin)\(path)", kind: kind)
        let run = try await sync("f", environment: ["FEEDCLI_TOKEN": "s3cret"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(JSONLines.ids(run.stdout)) == Set(ids), "the request elsewhere still happens")
        let (home, away) = server.requests(for: Set(paths))
        #expect(!home.isEmpty && !away.isEmpty, "the walk went to both origins")
        #expect(home.allSatisfy { $0.header("Authorization") == "Bearer s3cret" }, "the feed's own origin gets it")
        #expect(
            away.allSatisfy { $0.header("Authorization") == nil },
            "sent elsewhere: \(away.map { "\($0.header("Host") ?? "")\($0.path)" })")
    }

    @Test func aTokenNamedByTokenEnvFollowsTheSameRule() async throws {
        let server = try TwoOriginServer()
        let add = try await Feedcli.run(
            Feedcli.onStore(
                session.state,
                [
                    "feeds", "add", "f", "http://\(server.feedOrigin)/linked", "--kind", "linked", "--token-env",
                    "SHOP_TOKEN",
                ]))
        #expect(add.status == 0)
        let run = try await sync("f", environment: ["SHOP_TOKEN": "shh"])
        #expect(run.status == 0)
        let (home, away) = server.requests(for: ["/linked", "/linked-2"])
        #expect(home.map { $0.header("Authorization") } == ["Bearer shh"])
        #expect(away.map { $0.header("Authorization") } == [nil])
    }

    @Test(arguments: ["/linked", "/moved", "/port"])
    func aURLsPasswordGoesOnlyToTheFeedsOrigin(path: String) async throws {
        let server = try TwoOriginServer()
        try await session.add("f", "http://ann:pw@\(server.feedOrigin)\(path)", kind: "linked")
        let run = try await sync("f", environment: [:])
        #expect(run.status == 0, "\(run.stderr)")
        let basic = "Basic " + Data("ann:pw".utf8).base64EncodedString()
        let (home, away) = server.requests(for: [path, "/linked-2", "/moved-1", "/moved-2", "/port-1"])
        #expect(home.first?.header("Authorization") == basic, "the feed's own origin gets the password")
        #expect(!away.isEmpty)
        #expect(
            away.allSatisfy { $0.header("Authorization") == nil },
            "sent elsewhere: \(away.map { "\($0.header("Host") ?? "")\($0.path)" })")
    }

    @Test func originsAreComparedAfterNormalisation() {
        func same(_ a: String, _ b: String) -> Bool { URLOrigin.sharesCredentials(a, with: b) }
        #expect(same("http://Example.COM/a", "http://example.com:80/b"))
        #expect(same("HTTPS://host:443/x?y", "https://u:p@host/"))
        #expect(same("http://[::1]:8080/", "http://[::1]:8080/feed"))
        #expect(!same("http://localhost:8080/", "http://127.0.0.1:8080/"))
        #expect(!same("https://host/", "http://host/"))
        #expect(!same("http://host:8080/", "http://host/"))
        #expect(!same("http://host.evil/", "http://host/"))
        #expect(!same("http://host@evil/", "http://host/"), "userinfo is not the host")
        #expect(!same("ftp://host/", "ftp://host/"), "only http(s) and ws(s) have origins here")
        #expect(same("WSS://host/subscribe", "wss://host:443/subscribe?x=1"), "a WebSocket stream's origin")
        #expect(!same("wss://host/", "https://host/"), "a stream's token is not sent to the host's web pages")
        #expect(!same("/relative", "/relative"))
        #expect(!same("http://host:99999/", "http://host:99999/"), "a port out of range is no origin")
        #expect(URLOrigin("http://h:0800/")?.port == 800)
        #expect(URLOrigin("http://h:/")?.port == 80, "an empty port is the default (RFC 3986)")
        #expect(URLOrigin("http://h:8x/") == nil)
    }
}
