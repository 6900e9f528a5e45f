import FeedCore
import FeedReactor
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// The demo's fixture server (Fixtures/serve.py) with the real corpus: every kind, paged.
@Suite("Syncing the real fixtures through Fixtures/serve.py", .serialized, .timeLimit(.minutes(3)))
struct FixtureServerTests {
    @Test func everyFixtureSyncsCompletelyOnceAndThenAnswers304() async throws {
        let folder = (temporaryStorePath() as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let portFile = folder + "/port"
        let server = try await PythonServer.start(
            [Fixtures.root.appendingPathComponent("serve.py").path, "--port-file", portFile],
            portFile: portFile)
        let base = "http://127.0.0.1:\(server.port)"
        let state = folder + "/feedcli.sqlite"
        func feedcli(_ arguments: [String]) async throws -> FeedcliRun {
            try await Feedcli.run(Feedcli.onStore(state, arguments))
        }
        let feeds: [(String, String, String, Int)] = [
            ("graph", "\(base)/graph", "graph", 12),
            ("linked", "\(base)/linked", "linked", 12),
            ("inessential", "\(base)/jsonfeed/inessential/1.json", "jsonfeed", 20),
            ("fireball", "\(base)/jsonfeed/DaringFireball/1.json", "jsonfeed", 48),
            ("3960", "\(base)/jsonfeed/3960/1.json", "jsonfeed", 20),
            ("posts", "\(base)/posts", "indexed", 100),
        ]
        for (name, url, kind, _) in feeds {
            #expect(try await feedcli(["feeds", "add", name, url, "--kind", kind, "--replace"]).status == 0)
        }
        let first = try await feedcli(["sync", "--jsonl"])
        #expect(first.status == 0, "\(first.stderr)")
        let entries = JSONLines.objects(first.stdout)
        for (name, _, _, count) in feeds {
            let ids = entries.filter { $0["feed"] as? String == name }.compactMap { $0["id"] as? String }
            #expect(ids.count == count, "\(name)")
            #expect(Set(ids).count == ids.count, "\(name): each entry once")
        }
        // The real documents list newest first; feedcli stores and prints oldest first.
        let document =
            try JSONSerialization.jsonObject(with: Fixtures.data("jsonfeed/DaringFireball.json")) as? [String: Any]
        let served = (document?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        let fireball = entries.filter { $0["feed"] as? String == "fireball" }.compactMap { $0["id"] as? String }
        #expect(fireball == served.reversed())

        let second = try await feedcli(["sync"])
        #expect(second.status == 0)
        #expect(second.stdout.isEmpty && second.stderr.isEmpty)
        let status = try #require(try await feedcli(["status", "--json"]).json as? [[String: Any]])
        #expect(status.filter { $0["kind"] as? String != "indexed" }.allSatisfy { $0["etag"] is String })
    }
}
