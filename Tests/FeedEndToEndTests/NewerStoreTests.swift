import Foundation
import Testing
import FeedTesting
import FeedStoreTesting

/// A store that holds what a newer feedcli wrote (issue 38, finding 7): a schema this feedcli
/// does not know is read but never written; a feed of a kind it does not know is named, with
/// how to recover, and can be removed without SQL.
@Suite("A store a newer feedcli wrote", .timeLimit(.minutes(2)))
struct NewerStoreTests {
    @Test func aNewerSchemaIsReadButNeverWritten() async throws {
        let session = StoreSession()
        try await session.add("a", "http://127.0.0.1:9/a", kind: "linked")
        #expect(try await editStore(at: session.state, "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')"))
        let add = try await session.feedcli("feeds", "add", "b", "http://127.0.0.1:9/b", "--kind", "linked")
        #expect(add.status == 74, "\(add.stderr)")
        #expect(add.stderr.contains("newer than this feedcli's"), "names both versions: \(add.stderr)")
        let status = try await session.feedcli("status")
        #expect(status.status == 0 && status.stdout.contains("a "), "read as it is: \(status.stderr)")
        #expect(try await session.feedcli("list").status == 0)
    }

    @Test func aFeedOfAKindThisFeedcliDoesNotKnowIsNamedAndRemovable() async throws {
        let session = StoreSession()
        try await session.add("good", "http://127.0.0.1:9/g", kind: "linked")
        try await session.add("bad", "http://127.0.0.1:9/b", kind: "linked")
        #expect(try await editStore(at: session.state, "UPDATE feed SET kind = 'podcast' WHERE name = 'bad'"))
        let status = try await session.feedcli("status")
        #expect(status.status == 74, "\(status.stderr)")
        #expect(status.stderr.contains("feed bad has kind podcast, which this feedcli does not know"), "\(status.stderr)")
        #expect(status.stderr.contains("feedcli feeds remove bad"), "says how to recover: \(status.stderr)")
        let remove = try await session.feedcli("feeds", "remove", "bad")
        #expect(remove.status == 0, "\(remove.stderr)")
        let after = try await session.feedcli("status")
        #expect(after.status == 0 && after.stdout.contains("good") && !after.stdout.contains("bad"), "\(after.stdout)\(after.stderr)")
    }
}
