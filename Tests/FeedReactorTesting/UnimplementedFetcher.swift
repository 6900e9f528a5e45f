import FeedHTTP
import FeedKinds
import FeedModel
import FeedReactive
import FeedReactor
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

/// A fetcher for tests in which the reactor must not touch the network: any request fails the
/// test that made it, naming the URL (TCA's unimplemented dependencies), and fails the fetch.
public struct UnimplementedFetcher: FeedFetching {
    public init() {}

    public func get(_ url: String, feed: FeedRegistration, validators: Validators?, acceptsNotFound: Bool)
        -> Observable<HTTPResponse>
    {
        Issue.record(
            """
            The reactor fetched \(url) for feed \(feed.name), in a test whose environment has no fetcher. \
            Give FeedEnvironment.test a fetcher (a StubFetcher with this URL's response) if the action should fetch.
            """)
        return .fail(FeedFailure.configuration("unimplemented: \(url)"))
    }
}

extension FeedEnvironment {
    /// An environment for reactor tests: an in-memory store, a fetcher that fails the test when
    /// asked anything (unless one is given), output that takes every entry and keeps it, a fixed clock, everything run
    /// synchronously on the subscribing thread.
    public static func test(
        store: any FeedStoring = MemoryStore([]), fetcher: any FeedFetching = UnimplementedFetcher(),
        options: FetchOptions = FetchOptions(), output: any EntryOutput = RecordingOutput(),
        now: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_795_000_000) }
    ) -> FeedEnvironment {
        FeedEnvironment(store: store, fetcher: fetcher, options: options, output: output, now: now)
    }
}
