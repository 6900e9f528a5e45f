import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedKinds
@testable import FeedReactor
@testable import FeedStore

/// An item feedcli cannot keep (no usable id) is named on stderr (feed, position, why) and
/// counted in `status`, and never keeps its feed's other items out. Before,
/// such items were dropped without a word.
@Suite("Skipped items are named, never silent", .timeLimit(.minutes(3)))
struct SkippedItemTests {
    /// Five items: two with usable ids (a string, a number), three without (an object, none, blank).
    static let items =
        #"[{"id":{"a":1},"title":"x"},{"id":"ok","title":"kept"},{"title":"no id"},{"id":"  "},{"id":7}]"#

    static func page(_ kind: String) -> String {
        switch kind {
        case "graph": #"{"data":\#(items),"paging":{}}"#
        case "jsonfeed": #"{"version":"https://jsonfeed.org/version/1.1","title":"t","items":\#(items)}"#
        default: items
        }
    }

    @Test(arguments: ["graph", "jsonfeed", "linked"])
    func eachSkippedItemGetsOneLineAndACount(kind: String) async throws {
        let body = Self.page(kind)
        let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
        let session = StoreSession()
        try await session.add("f", server.baseURL + "/page", kind: kind)
        let run = try await session.feedcli("sync", "f", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(JSONLines.ids(run.stdout)) == ["ok", "7"], "the other items are kept")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(run.stderr)")
        #expect(
            lines.allSatisfy {
                $0.hasPrefix("feedcli: f: warning: skipped item ") && $0.contains(server.baseURL + "/page")
            })
        #expect(lines.contains { $0.contains("item 1 ") && $0.contains("its `id` is an object") })
        #expect(lines.contains { $0.contains("item 3 ") && $0.contains("it has no `id`") })
        #expect(lines.contains { $0.contains("item 4 ") && $0.contains("its `id` is blank") })
        #expect(try await session.status("f")?["last_skipped"] as? Int == 3)
        let plain = try await session.feedcli("feeds", "list")
        #expect(plain.stdout.contains("skipped 3 items without a usable id"), "\(plain.stdout)")
    }

    /// A page names its first 100 skipped items one by one and counts the rest in one line, so
    /// a hostile page of a million bad items is neither a million stderr lines nor the memory to
    /// hold them; `status` counts every one.
    @Test func aPageNamesItsFirstHundredSkippedItemsAndCountsTheRest() async throws {
        let body = "[" + Array(repeating: #"{"title":"no id"}"#, count: 250).joined(separator: ",") + #",{"id":"ok"}]"#
        let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
        let session = StoreSession()
        try await session.add("f", server.baseURL + "/page", kind: "linked")
        let run = try await session.feedcli("sync", "f", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(JSONLines.ids(run.stdout) == ["ok"])
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == SkippedItems.namedLimit + 1, "\(lines.suffix(2))")
        #expect(
            lines.prefix(SkippedItems.namedLimit).enumerated().allSatisfy { offset, line in
                line.hasPrefix("feedcli: f: warning: skipped item \(offset + 1) of ")
                    && line.hasSuffix("it has no `id`")
            })
        #expect(
            lines.last == "feedcli: f: warning: skipped 150 more items of \(server.baseURL)/page "
                + "(only the first 100 of a page are named)")
        #expect(try await session.status("f")?["last_skipped"] as? Int == 250)
    }

    @Test func anIndexedPostWithoutAUsableIDIsNamedAndTheCursorMovesOn() async throws {
        let server = try LoopbackServer { request, connection in
            switch request.path {
            case "/posts/1": connection.respond(200, text: #"{"id":[1],"title":"bad"}"#)
            case "/posts/2": connection.respond(200, text: #"{"id":2,"title":"good"}"#)
            default: connection.respond(404, text: "{}")
            }
        }
        let session = StoreSession()
        try await session.add("p", server.baseURL + "/posts", kind: "indexed")
        let run = try await session.feedcli("sync", "p", "--jsonl")
        #expect(run.status == 0 && JSONLines.ids(run.stdout) == ["2"], "\(run.stderr)")
        #expect(
            run.stderr
                == "feedcli: p: warning: skipped item 1 of \(server.baseURL)/posts/1: its `id` is an array, not a string or a number\n"
        )
        #expect(try await session.status("p")?["last_skipped"] as? Int == 1)
        #expect(try await session.status("p")?["next_index"] as? Int == 3)

        let next = try await session.feedcli("sync", "p")
        #expect(next.stderr.isEmpty && next.status == 0)
        #expect(try await session.status("p")?["last_skipped"] as? Int == 0, "the count is the last sync's")
    }

    @Test func aJSONFeedsNullIDIsASkippedItem() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"{"results":[{"key":null},{"key":"k1"}]}"#)
        }
        let session = StoreSession()
        #expect(
            try await session.run([
                "feeds", "add", "j", server.baseURL + "/api", "--items", ".results[]", "--id", ".key",
            ]).status == 0)
        let run = try await session.feedcli("sync", "j", "--jsonl")
        #expect(JSONLines.ids(run.stdout) == ["k1"])
        #expect(run.stderr.contains("skipped item 1 of") && run.stderr.contains("its --id is null"), "\(run.stderr)")
    }
}
