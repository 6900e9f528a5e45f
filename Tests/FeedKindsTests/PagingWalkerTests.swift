import FeedTesting
import Foundation
import Testing

@testable import FeedHTTP
@testable import FeedJQ
@testable import FeedKinds
@testable import FeedModel
@testable import FeedReactive

@Suite("The paging walker against a loopback server", .serialized, .timeLimit(.minutes(3)))
struct PagingWalkerTests {
    let http: HTTPClient

    init() throws {
        http = try HTTPClient()
    }

    func walk(
        _ server: PagedServer, maxPages: Int = 10, stored: Set<String> = [], validators: Validators? = nil
    ) async throws -> [PagingWalker.Step] {
        var options = FetchOptions()
        options.retries = 0
        let fetcher = FeedFetcher(
            http: http, workQueue: DispatchQueue(label: "test.work"), options: options, scheduler: DispatchScheduler(),
            random: { 0 },
            environment: [:], logger: .init(label: "test"))
        let format = try #require(
            FeedRegistration(name: "f", url: server.url, kind: server.kind.feedKind).pageFormat(jq: JQ.Limits()))
        let walker = PagingWalker(
            fetcher: fetcher, format: format,
            feed: FeedRegistration(name: "f", url: server.url, kind: .graph),
            maxPages: maxPages, mode: .untilStored, knownIDs: { Set($0).intersection(stored) })
        let recorder = Recorder<PagingWalker.Step>()
        walker.walk(from: server.url, validators: validators).subscribe(recorder.handler)
        #expect(await recorder.wait())
        if let error = recorder.error { throw error }
        return recorder.elements
    }

    func freshIDs(_ steps: [PagingWalker.Step]) -> [String] {
        steps.flatMap { step -> [String] in
            if case .page(let page) = step { page.fresh.map(\.id) } else { [] }
        }
    }

    @Test(arguments: [PagedServer.Kind.graph, .jsonfeed, .linked])
    func walksEveryPageUntilNoNextRemains(kind: PagedServer.Kind) async throws {
        let server = try PagedServer(kind: kind, count: 7, pageSize: 3)
        let steps = try await walk(server)
        #expect(freshIDs(steps) == (1...7).reversed().map { PagedServer.id($0, kind: kind) })
        #expect(server.requests.map(\.path) == ["/feed", "/feed?page=2", "/feed?page=3"])
        guard case .page(let first) = steps[1] else {
            Issue.record("no first page")
            return
        }
        #expect(first.validators?.etag != nil, "the first page's validators are kept")
    }

    @Test func stopsAtThePageHoldingAStoredEntry() async throws {
        let server = try PagedServer(kind: .graph, count: 9, pageSize: 3)
        let steps = try await walk(server, stored: ["7_5", "7_4"])
        #expect(freshIDs(steps) == ["7_9", "7_8", "7_7", "7_6"], "new items on the stopping page are kept")
        #expect(server.requests.count == 2)
    }

    /// The walker asks the store about a page's ids 1,000 at a time; an id stored in a later
    /// lookup is left out like one in the first, and the others keep their order.
    @Test func idsAreLookedUpInChunksAcrossAPage() async throws {
        let count = 2 * PagingWalker.lookupSize + 500
        let server = try PagedServer(kind: .linked, count: count, pageSize: count)
        let storedID = PagedServer.id(400, kind: .linked)  // position 2,101 on the page: the third lookup
        let steps = try await walk(server, stored: [storedID])
        let fresh = freshIDs(steps)
        #expect(fresh.count == count - 1)
        #expect(!fresh.contains(storedID))
        #expect(fresh == (1...count).reversed().map { PagedServer.id($0, kind: .linked) }.filter { $0 != storedID })
    }

    @Test func anEmptyPageWithNextIsNotTheEnd() async throws {
        let server = try PagedServer(kind: .jsonfeed, count: 4, pageSize: 2)
        server.insertEmptyPage(at: 2)
        let steps = try await walk(server)
        #expect(freshIDs(steps) == ["4", "3", "2", "1"])
        #expect(server.requests.count == 3)
    }

    @Test func neverRequestsAURLTwice() async throws {
        let server = try PagedServer(kind: .linked, count: 4, pageSize: 2)
        server.loopBack()
        let steps = try await walk(server)
        #expect(freshIDs(steps) == ["4", "3", "2", "1"])
        #expect(server.requests.map(\.path) == ["/feed", "/feed?page=2"])
    }

    @Test func isBoundedByMaxPagesAndSaysWhereItStopped() async throws {
        let server = try PagedServer(kind: .graph, count: 9, pageSize: 2)
        let steps = try await walk(server, maxPages: 2)
        #expect(freshIDs(steps) == ["7_9", "7_8", "7_7", "7_6"])
        guard case .page(let last) = steps.last else {
            Issue.record("no last page")
            return
        }
        #expect(last.unfollowedNext == server.server.baseURL + "/feed?page=3")
    }

    @Test func sendsValidatorsAndStopsOnNotModified() async throws {
        let server = try PagedServer(kind: .linked, count: 2)
        let first = try await walk(server)
        guard case .page(let page) = first[1], let validators = page.validators else {
            Issue.record("no validators")
            return
        }
        let second = try await walk(server, validators: validators)
        #expect(second.count == 2)
        guard case .notModified = second[1] else {
            Issue.record("expected notModified, got \(second)")
            return
        }
        #expect(server.requests.last?.header("If-None-Match") == validators.etag)
    }
}
