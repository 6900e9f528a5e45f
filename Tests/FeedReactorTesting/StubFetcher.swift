import FeedBase
import FeedHTTP
import FeedKinds
import FeedModel
import FeedReactive
import Foundation

/// A `FeedFetching` that answers from a table, synchronously, for reactor tests with no socket.
/// Unknown URLs are 404; each request is recorded.
public final class StubFetcher: FeedFetching {
    private let table: Locked<[String: Result<HTTPResponse, any Error>]>
    private let log = Locked<[String]>([])

    public init(_ responses: [String: Result<HTTPResponse, any Error>] = [:]) {
        table = Locked(responses)
    }

    public var requested: [String] { log.value }

    public func set(_ url: String, status: Int = 200, body: String, headers: [(String, String)] = []) {
        let response = HTTPResponse(
            status: status, headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }),
            body: Data(body.utf8), effectiveURL: url)
        table.withLock { $0[url] = .success(response) }
    }

    public func fail(_ url: String, with error: any Error) {
        table.withLock { $0[url] = .failure(error) }
    }

    public func get(_ url: String, feed: FeedRegistration, validators: Validators?, acceptsNotFound: Bool)
        -> Observable<HTTPResponse>
    {
        .deferred { [table, log] in
            log.withLock { $0.append(url) }
            switch table.value[url] ?? .success(HTTPResponse(status: 404, body: Data("{}".utf8), effectiveURL: url)) {
            case .success(let response):
                if response.status == 404, !acceptsNotFound { return .fail(HTTPStatusFailure(status: 404, url: url)) }
                return .just(response)
            case .failure(let error):
                return .fail(error)
            }
        }
    }
}
