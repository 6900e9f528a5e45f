import CCurl
import FeedReactive
import FoundationEssentials

/// One request in flight: an easy handle, the buffers its callbacks fill, and the observer that
/// gets the outcome: the whole response at the end, or for a stream its head and then its bytes
/// as they arrive (`Delivery`).
///
/// Thread contract: created, driven and destroyed on the client's worker thread only. curl calls
/// the callbacks from inside `curl_multi_perform` on that thread, and the worker keeps the
/// transfer alive (in its table) for as long as the handle is in the multi handle, which is why the
/// callbacks' user data can be unretained.
package final class CurlTransfer {
    /// Who hears the outcome, and how.
    package enum Delivery: Sendable {
        /// One `HTTPResponse` when the transfer ends.
        case whole(Observer<HTTPResponse>)
        /// The head at the first body byte (or at the end, for a body-less answer), then every
        /// chunk of the body as curl hands it over, no further ahead of its reader than the
        /// backlog allows.
        case stream(Observer<HTTPStreamPart>, StreamBacklog)
    }

    package let easy: UnsafeMutableRawPointer
    package let delivery: Delivery
    private let maxBodySize: Int
    /// A stream's longest silence; nil for a whole response.
    private let idleTimeout: Duration?
    /// When the last byte (head or body) arrived, for the idle check.
    private var lastByteAt = ContinuousClock.now
    private var wentIdle = false
    private var headSent = false
    private let startedAt = ContinuousClock.now
    private var body = Data()
    private var headers = HTTPHeaders()
    private var bodyTooLarge = false
    private var headerBytes = 0
    private var headersTooLarge = false
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Configures `reusing` (a handle of an earlier transfer, reset) or a new handle; fails with
    /// `HTTPError` if curl refuses an option.
    package init(
        request: HTTPRequest, userAgent: String, delivery: Delivery,
        reusing handle: UnsafeMutableRawPointer? = nil
    ) throws(HTTPError) {
        guard let easy = handle ?? curl_easy_init() else {
            throw HTTPError(.other, message: "curl_easy_init failed")
        }
        self.easy = easy
        self.delivery = delivery
        self.maxBodySize = request.maxBodySize
        self.idleTimeout = request.idleTimeout
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        do {
            try configure(request, userAgent: userAgent)
        } catch {
            curl_easy_cleanup(release())
            throw error
        }
    }

    private func configure(_ request: HTTPRequest, userAgent: String) throws(HTTPError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(feed_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(feed_easy_setopt_string(easy, CURLOPT_URL, request.url))
        try check(feed_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
        try check(feed_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        try check(feed_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(feed_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        try check(feed_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1))
        try check(feed_easy_setopt_long(easy, CURLOPT_MAXREDIRS, request.maxRedirects))
        try check(feed_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1))
        try check(feed_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2))
        try check(feed_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        try check(feed_easy_setopt_string(easy, CURLOPT_USERAGENT, userAgent))
        try check(feed_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeout.milliseconds))
        if request.idleTimeout != nil {
            // A stream has no end to wait for: no overall timeout (curl would cut it), no size
            // cap (its reader bounds each event). Silence is measured here, from the last byte:
            // curl's own low-speed limit fired seconds late.
            try check(feed_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, 0))
            try check(feed_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0))
            try check(feed_easy_setopt_xferinfo_callback(easy, CURLOPT_XFERINFOFUNCTION, curlTransferInfo))
            try check(feed_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, context))
            try check(feed_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, HTTPRequest.streamReadSize))
        } else {
            try check(feed_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeout.milliseconds))
            try check(feed_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBodySize)))
        }
        try check(feed_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody))
        try check(feed_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        try check(feed_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader))
        try check(feed_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        for field in request.headers {
            headerList = curl_slist_append(headerList, "\(field.name): \(field.value)")
        }
        if let headerList {
            try check(feed_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
        }
    }

    private func check(_ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else { throw HTTPError.from(curl: code, message: errorMessage) }
    }

    private var errorMessage: String { String(cString: errorBuffer) }

    /// Whether this transfer is a stream (its bytes are passed on as they come).
    package var isStream: Bool { idleTimeout != nil }

    /// Appends body bytes, or passes a stream's on; returns a short count (which makes curl
    /// abort) past the size cap.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if case .stream(let observer, let backlog) = delivery {
            lastByteAt = ContinuousClock.now
            sendHead(to: observer)
            guard backlog.waitForRoom() else { return 0 }  // abandoned: abort the transfer
            observer.next(.bytes(Array(bytes), receipt: backlog.handOn(bytes.count)))
            lastByteAt = ContinuousClock.now  // a wait for the reader is not the server's silence
            return bytes.count
        }
        if body.count + bytes.count > maxBodySize {
            bodyTooLarge = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Records one header line. A status line starts a new header block (after a redirect or a
    /// 1xx), so only the final response's headers are kept.
    /// Parsed as bytes: split at the first colon, optional whitespace trimmed (RFC 9110 §5.5).
    fileprivate func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastByteAt = ContinuousClock.now
        headerBytes += bytes.count
        guard headerBytes <= HTTPError.maxHeaderBytes else {
            headersTooLarge = true
            return 0
        }
        if bytes.starts(with: "HTTP/".utf8) {
            headers = HTTPHeaders()
            headerBytes = bytes.count
        } else if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) {
            // The end of a header block: a stream that answered 2xx is connected now, before
            // its first byte (a server may send none for a while; what waits on the connection,
            // a catch-up, should not). Redirects and failures wait for their end as before.
            if case .stream(let observer, _) = delivery {
                var status = 0
                _ = feed_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                if (200...299).contains(status) { sendHead(to: observer) }
            }
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            let name = Self.trimmed(bytes, bytes.startIndex, colon)
            let value = Self.trimmed(bytes, colon + 1, bytes.endIndex)
            if !name.isEmpty {
                headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
            }
        }
        return bytes.count
    }

    /// `bytes[start..<end]` without leading and trailing whitespace (space, tab, CR, LF), as a
    /// buffer, so that `String(decoding:)` takes its contiguous fast path.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = start
        var end = end
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// Whether a stream has been silent for longer than its idle timeout (then it is aborted).
    fileprivate func isIdle() -> Bool {
        guard let idleTimeout, ContinuousClock.now - lastByteAt > idleTimeout else { return false }
        wentIdle = true
        return true
    }

    /// The stream's head, once, before its first byte.
    private func sendHead(to observer: Observer<HTTPStreamPart>) {
        guard !headSent else { return }
        headSent = true
        observer.next(.head(head(body: Data())))
    }

    /// Status, headers, effective URL and `Retry-After` as curl has them now.
    private func head(body: Data) -> HTTPResponse {
        var status = 0
        _ = feed_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var urlPointer: UnsafeMutablePointer<CChar>?
        _ = feed_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &urlPointer)
        let retryAfter = headers["Retry-After"].flatMap { RetryAfter.parse($0, now: Date()) }
        return HTTPResponse(
            status: status, headers: headers, body: body,
            effectiveURL: urlPointer.map { String(cString: $0) } ?? "",
            retryAfter: retryAfter, elapsed: ContinuousClock.now - startedAt)
    }

    /// How the transfer ended (curl's `code`), read from the handle now, told to the observer by
    /// the returned closure: the worker calls it after removing and resetting the handle (a
    /// reset handle no longer knows its status).
    package func finish(_ code: CURLcode) -> @Sendable () -> Void {
        switch delivery {
        case .whole(let observer):
            let outcome = outcome(code)
            return {
                switch outcome {
                case .success(let response):
                    observer.next(response)
                    observer.complete()
                case .failure(let error):
                    observer.fail(error)
                }
            }
        case .stream(let observer, _):
            let error: HTTPError?
            if wentIdle {
                error = HTTPError(
                    .idle, message: "no byte for \(idleTimeout.map { Duration.milliseconds($0.milliseconds) } ?? .zero)"
                )
            } else if headersTooLarge {
                error = HTTPError.headersTooLarge
            } else if code != CURLE_OK {
                error = HTTPError.from(curl: code, message: errorMessage)
            } else {
                error = nil
            }
            let head = headSent || error != nil ? nil : head(body: Data())
            headSent = true
            return {
                if let error { return observer.fail(error) }
                if let head { observer.next(.head(head)) }
                observer.complete()
            }
        }
    }

    /// Tells the observer the transfer ended without an outcome (cancelled, client shut down).
    package func fail(_ error: HTTPError) {
        switch delivery {
        case .whole(let observer): observer.fail(error)
        case .stream(let observer, _): observer.fail(error)
        }
    }

    /// The outcome once curl reports the transfer done.
    package func outcome(_ code: CURLcode) -> Result<HTTPResponse, HTTPError> {
        if headersTooLarge { return .failure(.headersTooLarge) }
        if bodyTooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(
                HTTPError(
                    .bodyTooLarge, message: "response body exceeds \(maxBodySize) bytes",
                    curlCode: Int(CURLE_FILESIZE_EXCEEDED.rawValue)))
        }
        guard code == CURLE_OK else { return .failure(HTTPError.from(curl: code, message: errorMessage)) }
        return .success(head(body: body))
    }

    /// Frees what this transfer gave curl and returns its handle with every option reset
    /// (`curl_easy_reset`), for the next transfer or for `curl_easy_cleanup`. Call once, after
    /// removing the handle from the multi handle.
    package func release() -> UnsafeMutableRawPointer {
        curl_easy_reset(easy)
        curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer.deallocate()
        return easy
    }
}

private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer? {
    context.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private let curlWriteBody: curl_write_callback = { data, size, count, context in
    guard let data, let transfer = transfer(context) else { return 0 }
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

private let curlWriteHeader: curl_write_callback = { data, size, count, context in
    guard let data, let transfer = transfer(context) else { return 0 }
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
}

private let curlTransferInfo: curl_xferinfo_callback = { context, _, _, _, _ in
    guard let transfer = transfer(context) else { return 0 }
    return transfer.isIdle() ? 1 : 0
}
