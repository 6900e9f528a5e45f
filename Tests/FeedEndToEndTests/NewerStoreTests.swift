import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// A store that holds what a newer feedcli wrote: a schema this feedcli
/// does not know is read but never written; a feed of a kind it does not know is shown as
/// such, kept by exports and copies, fails only when fetched (78, saying how to recover), and can
/// be removed without SQL.
@Suite("A store a newer feedcli wrote", .timeLimit(.minutes(2)))
struct NewerStoreTests {
    @Test func aNewerSchemaIsReadButNeverWritten() async throws {
        let session = StoreSession()
        try await session.add("a", "http://127.0.0.1:9/a", kind: "linked")
        #expect(
            try await editStore(
                at: session.state, "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')"))
        let add = try await session.feedcli("feeds", "add", "b", "http://127.0.0.1:9/b", "--kind", "linked")
        #expect(add.status == 74, "\(add.stderr)")
        #expect(add.stderr.contains("newer than this feedcli's"), "names both versions: \(add.stderr)")
        let status = try await session.feedcli("status")
        #expect(status.status == 0 && status.stdout.contains("a "), "read as it is: \(status.stderr)")
        #expect(try await session.feedcli("list").status == 0)
    }

    @Test func aFeedOfAKindThisFeedcliDoesNotKnowIsShownKeptAndRemovable() async throws {
        let session = StoreSession()
        try await session.add("good", "http://127.0.0.1:9/g", kind: "linked")
        try await session.add("bad", "http://127.0.0.1:9/b", kind: "linked")
        #expect(try await editStore(at: session.state, "UPDATE feed SET kind = 'podcast' WHERE name = 'bad'"))

        let status = try await session.feedcli("status")
        #expect(status.status == 0, "shown, not a failure of the store: \(status.stderr)")
        #expect(status.stdout.contains("podcast") && status.stdout.contains("good"), "\(status.stdout)")
        let one = try await session.feedcli("feeds", "list")
        #expect(one.status == 0 && one.stdout.contains("bad (podcast)"), "\(one.stdout)\(one.stderr)")
        #expect(
            one.stdout.contains("this feedcli does not know its kind")
                && one.stdout.contains("feedcli feeds remove bad"),
            "says how to recover: \(one.stdout)")
        let json = try await session.feedcli("feeds", "list", "--json")
        #expect(json.status == 0 && json.stdout.contains(#""kind":"podcast""#), "\(json.stdout)\(json.stderr)")

        let sync = try await session.feedcli("sync", "bad")
        #expect(sync.status == 78, "\(sync.stderr)")
        #expect(sync.stderr.contains("feed bad has kind podcast, which this feedcli does not know"), "\(sync.stderr)")
        let follow = try await session.feedcli("follow", "bad", "--max-time", "1s")
        #expect(follow.status == 78 && follow.stderr.contains("kind podcast"), "\(follow.stderr)")

        // Kept as the store holds it: an OPML export and a copy keep the kind for the feedcli that knows it.
        let opml = try await session.feedcli("feeds", "export")
        #expect(opml.status == 0 && opml.stdout.contains(#"kind="podcast""#), "\(opml.stdout)\(opml.stderr)")
        let copy = session.state + ".copy"
        #expect(try await Feedcli.run(["store", "copy", session.state, copy]).status == 0)
        let copied = try await Feedcli.run(["status", "bad", "--json", "--state", copy])
        #expect(copied.stdout.contains(#""kind":"podcast""#), "\(copied.stdout)\(copied.stderr)")

        let remove = try await session.feedcli("feeds", "remove", "bad")
        #expect(remove.status == 0, "\(remove.stderr)")
        let after = try await session.feedcli("status")
        #expect(
            after.status == 0 && after.stdout.contains("good") && !after.stdout.contains("bad"),
            "\(after.stdout)\(after.stderr)")
    }
}
