import FeedBase
import FeedModel
import Foundation

/// A loopback server for one paged feed of any kind, newest first, with ETags, and knobs for the
/// cases that matter: new items at the top, empty pages that still have `next`, a `next` that
/// loops back, and failing responses.
public final class PagedServer: Sendable {
    public enum Kind: Sendable {
        case graph, jsonfeed, linked

        public var feedKind: FeedKind {
            switch self {
            case .graph: .graph
            case .jsonfeed: .jsonfeed
            case .linked: .linked
            }
        }
    }

    private struct State {
        var items: [String]
        var pageSize: Int
        var emptyPages: Set<Int> = []
        var loopsBack = false
        var failures: [(Int, [(String, String)])] = []
    }

    public let kind: Kind
    public let server: LoopbackServer
    private let state: Locked<State>

    public var url: String { server.baseURL + "/feed" }
    public var requests: [LoopbackServer.Request] { server.requests }

    /// Serves items `1...count`, newest (`count`) first.
    public init(kind: Kind, count: Int, pageSize: Int = 3) throws {
        self.kind = kind
        let state = Locked(
            State(items: (1...max(count, 1)).reversed().map { PagedServer.item($0, kind: kind) }, pageSize: pageSize))
        if count == 0 { state.withLock { $0.items = [] } }
        self.state = state
        server = try LoopbackServer { request, connection in
            if let (status, headers) = state.withLock({ $0.failures.isEmpty ? nil : $0.failures.removeFirst() }) {
                return connection.respond(status, headers: headers, text: "{}")
            }
            let page = Int(request.path.split(separator: "=").last.map(String.init) ?? "") ?? 1
            let (body, headers) = state.withLock {
                PagedServer.render(page: page, state: $0, kind: kind, host: request.header("Host") ?? "")
            }
            let etag = "\"\(body.hashValue)\""
            if request.header("If-None-Match") == etag {
                return connection.respond(304, headers: [("ETag", etag)], text: "")
            }
            connection.respond(
                200, headers: headers + [("ETag", etag), ("Content-Type", "application/json")], text: body)
        }
    }

    /// Publishes items `from...to` at the top (newest first).
    public func publish(_ range: ClosedRange<Int>) {
        state.withLock { $0.items.insert(contentsOf: range.reversed().map { PagedServer.item($0, kind: kind) }, at: 0) }
    }
    public func insertEmptyPage(at page: Int) { state.withLock { _ = $0.emptyPages.insert(page) } }
    public func loopBack() { state.withLock { $0.loopsBack = true } }
    public func failNext(_ status: Int, headers: [(String, String)] = []) {
        state.withLock { $0.failures.append((status, headers)) }
    }

    public static func item(_ n: Int, kind: Kind) -> String {
        switch kind {
        case .graph:
            #"{"id":"7_\#(n)","created_time":"2026-11-\#(String(format: "%02d", n % 28 + 1))T10:00:00+0000","message":"post \#(n)","from":{"name":"Ann"}}"#
        case .jsonfeed:
            #"{"id":"\#(n)","content_text":"post \#(n)","date_published":"2026-11-01T10:00:00Z"}"#
        case .linked:
            #"{"id":\#(n),"title":"post \#(n)","user":{"login":"octo"}}"#
        }
    }

    /// The id feedcli stores for item `n`.
    public static func id(_ n: Int, kind: Kind) -> String { kind == .graph ? "7_\(n)" : "\(n)" }

    private static func render(page: Int, state: State, kind: Kind, host: String) -> (String, [(String, String)]) {
        var pages = stride(from: 0, to: state.items.count, by: state.pageSize).map {
            Array(state.items[$0..<min($0 + state.pageSize, state.items.count)])
        }
        if pages.isEmpty { pages = [[]] }
        for empty in state.emptyPages.sorted() where empty <= pages.count + 1 { pages.insert([], at: empty - 1) }
        let items = page <= pages.count ? pages[page - 1] : []
        let nextPath: String? = page < pages.count ? "/feed?page=\(page + 1)" : (state.loopsBack ? "/feed" : nil)
        let list = "[" + items.joined(separator: ",") + "]"
        switch kind {
        case .graph:
            let next = nextPath.map { #","next":"http://\#(host)\#($0)""# } ?? ""
            return (#"{"data":\#(list),"paging":{"cursors":{"before":"b","after":"a"}\#(next)}}"#, [])
        case .jsonfeed:
            let next = nextPath.map { #","next_url":"\#($0)""# } ?? ""
            return (#"{"version":"https://jsonfeed.org/version/1.1","title":"T","items":\#(list)\#(next)}"#, [])
        case .linked:
            return (list, nextPath.map { [("Link", #"<\#($0)>; rel="next", </feed>; rel="first""#)] } ?? [])
        }
    }
}
