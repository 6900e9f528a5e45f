import FeedHTTP
import FeedModel
import FeedTesting
import Foundation
import Synchronization
import Testing

/// Runs `request` on `client` and waits for its outcome.
func fetch(_ client: HTTPClient, _ request: HTTPRequest) async -> Result<HTTPResponse, HTTPError> {
    let recorder = Recorder<HTTPResponse>()
    client.get(request).subscribe(recorder.handler)
    guard await recorder.wait(seconds: 20) else { return .failure(HTTPError(.other, message: "test timed out")) }
    if let error = recorder.error { return .failure(error as? HTTPError ?? HTTPError(.other)) }
    guard let response = recorder.elements.first else { return .failure(HTTPError(.other, message: "no response")) }
    return .success(response)
}

extension Result {
    var value: Success? { try? get() }
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

@Suite("HTTP client against a loopback server", .serialized, .timeLimit(.minutes(3)))
struct HTTPClientTests {
    let client: HTTPClient

    init() throws {
        client = try HTTPClient()
    }

    @Test func statusHeadersAndBody() async throws {
        let server = try LoopbackServer { request, connection in
            switch request.path {
            case "/ok":
                connection.respond(
                    200, headers: [("X-Multi", "a"), ("x-multi", "b"), ("Content-Type", "application/json")],
                    text: #"{"ok":true}"#)
            case "/missing": connection.respond(404, text: "{}")
            case "/spaced":
                connection.send(
                    "HTTP/1.1 200 OK\r\nX-Padded: \t padded  value \t\r\nX-Empty:\r\n: nameless\r\nContent-Length: 0\r\n\r\n"
                )
            default: connection.respond(500, text: "boom")
            }
        }
        let ok = try #require(await fetch(client, HTTPRequest(url: server.baseURL + "/ok")).value)
        #expect(ok.status == 200)
        #expect(String(decoding: ok.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(ok.headers["content-type"] == "application/json", "lookup ignores case")
        #expect(ok.headers.values(for: "X-MULTI") == ["a", "b"], "repeated headers are kept")
        #expect(ok.effectiveURL == server.baseURL + "/ok")
        #expect(ok.retryAfter == nil)
        let spaced = try #require(await fetch(client, HTTPRequest(url: server.baseURL + "/spaced")).value)
        #expect(spaced.headers["X-Padded"] == "padded  value", "whitespace around a value is not part of it")
        #expect(spaced.headers["X-Empty"] == "")
        #expect(spaced.headers.values(for: "").isEmpty, "a header without a name is dropped")
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/missing")).value?.status == 404)
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/fail")).value?.status == 500)
    }

    @Test func sendsUserAgentAndExtraHeaders() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: "") }
        var request = HTTPRequest(url: server.baseURL + "/")
        request.headers.add(name: "If-None-Match", value: #""v1""#)
        _ = await fetch(client, request)
        let seen = try #require(server.requests.first)
        #expect(seen.header("User-Agent") == "feedcli/\(FeedcliVersion.current)")
        #expect(seen.header("If-None-Match") == #""v1""#)
        #expect(seen.header("Accept-Encoding")?.contains("gzip") == true)
    }

    @Test func requestsAreColdAndRepeatable() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: "x") }
        let request = client.get(HTTPRequest(url: server.baseURL + "/"))
        // A probe through the same client, waited for: a transfer started on creation would
        // have been queued to the worker before it (no sleeping to see nothing happen).
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/probe")).value?.status == 200)
        #expect(server.requests.map(\.path) == ["/probe"], "nothing is sent before subscription")
        for _ in 0..<2 {
            let recorder = Recorder<HTTPResponse>()
            request.subscribe(recorder.handler)
            await recorder.wait()
        }
        #expect(server.requests.count == 3, "each subscription sends again")
    }

    @Test func decodesGzip() async throws {
        let compressed = try Fixtures.data("http/greeting.txt.gz")
        let plain = try Fixtures.data("http/greeting.txt")
        let server = try LoopbackServer { request, connection in
            if request.path == "/gzip" {
                connection.respond(200, headers: [("Content-Encoding", "gzip")], body: Array(compressed))
            } else {
                connection.respond(200, headers: [("Content-Encoding", "gzip")], text: "not gzip at all")
            }
        }
        let response = try #require(await fetch(client, HTTPRequest(url: server.baseURL + "/gzip")).value)
        #expect(response.body == plain)
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/bad")).failure?.kind == .badContentEncoding)
    }

    @Test func followsARedirectChainAndStopsALoop() async throws {
        let server = try LoopbackServer { request, connection in
            let path = request.path
            if path.hasPrefix("/hop/"), let n = Int(path.dropFirst(5)), n > 0 {
                connection.respond(302, headers: [("Location", "/hop/\(n - 1)")], text: "")
            } else if path == "/hop/0" {
                connection.respond(200, text: "arrived")
            } else if path == "/loop" {
                connection.respond(301, headers: [("Location", "/loop")], text: "")
            } else if path == "/ftp" {
                connection.respond(302, headers: [("Location", "ftp://127.0.0.1/file")], text: "")
            }
        }
        let arrived = try #require(await fetch(client, HTTPRequest(url: server.baseURL + "/hop/5")).value)
        #expect(arrived.status == 200)
        #expect(arrived.effectiveURL == server.baseURL + "/hop/0")
        #expect(
            await fetch(client, HTTPRequest(url: server.baseURL + "/hop/6")).failure?.kind == .tooManyRedirects,
            "six redirects are one too many")
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/loop")).failure?.kind == .tooManyRedirects)
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/ftp")).failure?.kind == .unsupportedProtocol)
    }

    @Test func refusesOtherSchemesAndBadURLs() async throws {
        #expect(await fetch(client, HTTPRequest(url: "ftp://127.0.0.1/x")).failure?.kind == .unsupportedProtocol)
        #expect(await fetch(client, HTTPRequest(url: "file:///etc/passwd")).failure?.kind == .unsupportedProtocol)
        #expect(await fetch(client, HTTPRequest(url: "http://[::1")).failure?.kind == .invalidURL)
    }

    /// A server that never answers: only the request's own timeout can end the fetch (a broken
    /// one would hang the test until its time limit), and it ends it as a timeout.
    @Test func timesOutOnASlowServer() async throws {
        let server = try LoopbackServer { _, connection in
            connection.waitForPeerClose(limit: .seconds(60))
        }
        let outcome = await fetch(client, HTTPRequest(url: server.baseURL + "/", timeout: .milliseconds(300)))
        #expect(outcome.failure?.kind == .timedOut)
    }

    @Test func connectionRefused() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let outcome = await fetch(client, HTTPRequest(url: "http://127.0.0.1:\(refusing.port)/"))
        #expect(outcome.failure?.kind == .couldNotConnect)
    }

    /// A transfer the server stalls on (a minute's timeout, a server that waits for the client to
    /// close): `dispose()` closes the connection at once, which nothing else would do for a
    /// minute, and the subscriber hears nothing more.
    @Test func disposingAbortsAStalledTransfer() async throws {
        let requested = TestSignal()
        let closed = TestSignal()
        let server = try LoopbackServer { _, connection in
            requested.signal()
            connection.waitForPeerClose(limit: .seconds(60))
            closed.signal()
        }
        let recorder = Recorder<HTTPResponse>()
        let subscription = client.get(HTTPRequest(url: server.baseURL + "/stall", timeout: .seconds(60))).subscribe(
            recorder.handler)
        #expect(await requested.wait(seconds: 10))
        subscription.dispose()
        #expect(await closed.wait(seconds: 10), "dispose() closed the connection")
        #expect(!recorder.isTerminated, "a disposed subscription hears nothing more")
    }

    @Test func refusesABodyOverTheCap() async throws {
        let server = try LoopbackServer { request, connection in
            let big = [UInt8](repeating: 65, count: 10_000)
            if request.path == "/declared" {
                connection.respond(200, body: big)
            } else {
                // No Content-Length: only counting while receiving can catch it.
                connection.send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
                connection.send(big)
                connection.close()
            }
        }
        let declared = await fetch(client, HTTPRequest(url: server.baseURL + "/declared", maxBodySize: 1000))
        #expect(declared.failure?.kind == .bodyTooLarge)
        let streamed = await fetch(client, HTTPRequest(url: server.baseURL + "/streamed", maxBodySize: 1000))
        #expect(streamed.failure?.kind == .bodyTooLarge)
        let fits = await fetch(client, HTTPRequest(url: server.baseURL + "/streamed", maxBodySize: 10_000))
        #expect(fits.value?.body.count == 10_000)
    }

    @Test func truncatedAndMalformedReplies() async throws {
        let server = try LoopbackServer { request, connection in
            switch request.path {
            case "/truncated":
                connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
            case "/garbage":
                connection.send("this is not http\r\n\r\n")
            default:
                break  // close without a byte
            }
            connection.close()
        }
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/truncated")).failure?.kind == .partialBody)
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/garbage")).failure?.kind == .malformedReply)
        #expect(
            await fetch(client, HTTPRequest(url: server.baseURL + "/nothing")).failure?.kind == .connectionLost,
            "closed without an answer: a server going away, worth another try")
    }

    @Test func parsesRetryAfter() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path == "/seconds" {
                connection.respond(429, headers: [("Retry-After", "120")], text: "")
            } else {
                connection.respond(503, headers: [("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")], text: "")
            }
        }
        #expect(await fetch(client, HTTPRequest(url: server.baseURL + "/seconds")).value?.retryAfter == .seconds(120))
        #expect(
            await fetch(client, HTTPRequest(url: server.baseURL + "/date")).value?.retryAfter == .zero,
            "a date in the past is clamped to now")
    }

    @Test func reusesOneConnectionForSequentialRequests() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: "x") }
        for n in 0..<5 { _ = await fetch(client, HTTPRequest(url: server.baseURL + "/\(n)")) }
        #expect(server.requests.count == 5)
        #expect(server.connectionCount == 1)
    }

    /// Finished transfers' handles are reset and reused: nothing of one request (its headers,
    /// limits, a failure or an abort) may reach the next one on the same handle.
    @Test func aReusedHandleCarriesNothingOver() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path == "/big" { return connection.respond(200, body: Array(repeating: 0x61, count: 10_000)) }
            connection.respond(200, headers: [("X-Seen", request.header("If-None-Match") ?? "-")], text: "{}")
        }
        for round in 0..<20 {  // more rounds than the worker keeps idle handles (8)
            var tagged = HTTPRequest(url: server.baseURL + "/tagged", maxBodySize: 100)
            tagged.headers.add(name: "If-None-Match", value: "\"\(round)\"")
            #expect(await fetch(client, tagged).value?.headers["X-Seen"] == "\"\(round)\"")
            #expect(
                await fetch(client, HTTPRequest(url: server.baseURL + "/big", maxBodySize: 100)).failure?.kind
                    == .bodyTooLarge)
            let plain = try #require(await fetch(client, HTTPRequest(url: server.baseURL + "/plain")).value)
            #expect(plain.headers["X-Seen"] == "-", "round \(round): a header of an earlier request was sent again")
            #expect(plain.effectiveURL == server.baseURL + "/plain")
            let big = await fetch(client, HTTPRequest(url: server.baseURL + "/big"))
            #expect(big.value?.body.count == 10_000, "the earlier request's size cap is gone")
        }
    }

    @Test func runsAtMostFourTransfersPerHost() async throws {
        let gate = RequestGate()
        gate.hold(from: 1)
        let server = try LoopbackServer { _, connection in
            gate.arrive()
            connection.respond(200, text: "x")
        }
        let recorders = (0..<10).map { _ in Recorder<HTTPResponse>() }
        let subscriptions = recorders.enumerated().map { n, recorder in
            client.get(HTTPRequest(url: server.baseURL + "/\(n)")).subscribe(recorder.handler)
        }
        // Every request is held until four are in flight: a fifth transfer would be one too.
        #expect(await gate.waitForArrivals(4))
        gate.open()
        for recorder in recorders { #expect(await recorder.wait()) }
        #expect(recorders.allSatisfy { $0.elements.first?.status == 200 })
        #expect(server.peakInFlight == 4)
        #expect(server.connectionCount <= 4)
        _ = subscriptions
    }

    @Test func shutdownFailsWhatIsStillRunning() async throws {
        let requested = TestSignal()
        let server = try LoopbackServer { _, connection in
            requested.signal()
            connection.waitForPeerClose()
        }
        let local = try HTTPClient()
        let recorder = Recorder<HTTPResponse>()
        local.get(HTTPRequest(url: server.baseURL + "/")).subscribe(recorder.handler)
        #expect(await requested.wait(seconds: 5), "the transfer is running")
        local.shutdown()
        #expect(await recorder.wait(seconds: 2))
        #expect((recorder.error as? HTTPError)?.kind == .cancelled)
        let after = Recorder<HTTPResponse>()
        local.get(HTTPRequest(url: server.baseURL + "/")).subscribe(after.handler)
        #expect((after.error as? HTTPError)?.kind == .cancelled)
    }
}

@Suite("HTTP client shutdown under concurrency", .serialized, .timeLimit(.minutes(3)))
struct HTTPClientShutdownTests {
    /// Regression: `curl_multi_wakeup` ran after the inbox lock was released, so a shutdown could
    /// clean the multi handle up first (a use after free). Requests, cancellations and shutdown
    /// race here many times; every request must end exactly once.
    @Test(.timeLimit(.minutes(2))) func requestsCancellationsAndShutdownRace() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: "ok") }
        for _ in 0..<60 {
            let client = try HTTPClient()
            let recorders = (0..<4).map { _ in Recorder<HTTPResponse>() }
            let raced = TestSignal()
            for (index, recorder) in recorders.enumerated() {
                DispatchQueue.global().async {
                    let subscription = client.get(HTTPRequest(url: server.baseURL + "/\(index)")).subscribe(
                        recorder.handler)
                    if index % 2 == 0 { subscription.dispose() }
                    raced.signal()
                }
            }
            DispatchQueue.global().async {
                client.shutdown()
                raced.signal()
            }
            for _ in 0..<5 { _ = await raced.wait(seconds: 30) }
            client.shutdown()
            for recorder in recorders { #expect(recorder.terminalCount <= 1) }
        }
    }

    /// Regression: a request queued for the worker in the same moment as a shutdown was dropped
    /// with the queue, so its observer never heard anything and whoever waited on it (an
    /// interrupted `sync --jobs`, in CI) waited forever. Every request that is not disposed must
    /// end once, by the time `shutdown` returns.
    @Test(.timeLimit(.minutes(2))) func aRequestQueuedAsTheClientShutsDownStillEnds() throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: "ok") }
        for round in 0..<200 {
            let client = try HTTPClient()
            let recorders = (0..<4).map { _ in Recorder<HTTPResponse>() }
            let subscriptions = recorders.enumerated().map { index, recorder in
                client.get(HTTPRequest(url: server.baseURL + "/\(index)")).subscribe(recorder.handler)
            }
            client.shutdown()
            for (index, recorder) in recorders.enumerated() {
                #expect(recorder.terminalCount == 1, "round \(round), request \(index)")
            }
            subscriptions.forEach { $0.dispose() }
            if recorders.contains(where: { $0.terminalCount != 1 }) { break }
        }
    }
}
