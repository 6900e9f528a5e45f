import FeedReactorTesting
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// What `mutate` produces for an action, received mutation by mutation with every state change
/// asserted (`ReducerTester.send(action:)`, `receive`), on an environment whose fetcher fails the
/// test if asked anything (`FeedEnvironment.test`).
@Suite("Actions, their mutations and states, exhaustively")
struct ActionMutationTests {
    static let fireball = FeedRegistration(name: "fireball", url: "http://127.0.0.1:9/feed.json", kind: .jsonfeed)

    @Test func statusReadsTheStoreAndNeverTheNetwork() async throws {
        let store = MemoryStore([Self.fireball, .defaultFeed])
        let posts = try store.feed(named: "posts")
        let fireball = try store.feed(named: "fireball")
        var tester = ReducerTester(FeedReactor(environment: .test(store: store)))
        await tester.send(action: .loadStatus(feeds: []))
        tester.receive(.actionStarted) { $0.revision = 1 }
        tester.receive(.loaded(fireball)) { $0.feeds["fireball"] = FeedStatus(name: "fireball", record: fireball) }
        tester.receive(.loaded(posts)) { $0.feeds["posts"] = FeedStatus(name: "posts", record: posts) }
        tester.finish()
    }

    @Test func anUnknownFeedIsAFailureInState() async {
        var tester = ReducerTester(FeedReactor(environment: .test()))
        await tester.send(action: .loadStatus(feeds: ["nope"]))
        tester.receive(.actionStarted) { $0.revision = 1 }
        tester.receive(.failed(feed: nil, .notFound("no feed named nope"))) {
            $0.failure = .notFound("no feed named nope")
        }
        tester.finish()
    }

    /// The unimplemented fetcher is what keeps these tests honest: an action that fetches fails
    /// the test, naming the URL.
    @Test func aFetchInAnEnvironmentWithoutAFetcherFailsTheTest() async {
        var tester = ReducerTester(FeedReactor(environment: .test(store: MemoryStore([Self.fireball]))))
        await withKnownIssue {
            await tester.send(action: .sync(feeds: ["fireball"]))
        } matching: { issue in
            issue.description.contains("fetched http://127.0.0.1:9/feed.json for feed fireball")
        }
    }
}
