import FeedHTTP
import FeedJQ
import FeedKinds
import FeedModel
import FeedReactor
import FoundationEssentials

/// What `feeds add` and `feeds import` check of a feed before it is registered: its name, URL
/// and expressions (compiled by jq, in the sandbox), and its kind, asked of its URL when not
/// given. `feeds set` checks changed expressions the same way.
enum FeedAdmission {
    /// The feed `feeds add` would register, its names, URL and expressions checked (nothing is
    /// asked of the network or the store); its kind is `.linked` when not given and not `json`.
    /// Why `url` cannot be a feed's URL, in a sentence; nil when it can. Checked as a server's
    /// link is (host, port, length, control characters), so that `http://[::1` or port 99999 is
    /// refused here rather than at the first sync.
    private static func whyRefused(_ url: String, webSocket: Bool = false) -> String? {
        let shown = Redaction.maskingSecrets(in: url)
        guard let why = FeedRegistration.whyUnusableLink(url, webSocket: webSocket) else {
            // A WebSocket connection sends no credentials of a URL (it would be dropped without
            // a word): refused here, with the way that works.
            if webSocket, let user = URLComponents(string: url)?.user, !user.isEmpty {
                return "a ws or wss URL's user:password is not sent: \(shown); give a token with --token-env VAR"
            }
            return nil
        }
        if FeedRegistration.isValidURL(url, webSocket: webSocket) { return "the URL \(shown) \(why)" }
        if webSocket { return "not a ws or wss URL: \(shown)" }
        if FeedRegistration.isValidURL(url, webSocket: true) {
            return "\(shown) is a WebSocket URL: give --kind jetstream or --kind nostr"
        }
        // A URL without its scheme (`127.0.0.1:8089/feed`, `example.com/feed.json`): say the
        // one that would do, rather than make the user guess what is wrong.
        if !url.contains("://"), FeedRegistration.isValidURL("https://" + url, webSocket: false) {
            let scheme = Self.isLocal(url) ? "http" : "https"
            return "not an http or https URL: \(shown) (did you mean \(scheme)://\(shown)?)"
        }
        return "not an http or https URL: \(shown)"
    }

    /// Whether a URL without a scheme names this machine, where servers rarely speak TLS.
    private static func isLocal(_ url: String) -> Bool {
        let host = url.prefix { $0 != "/" && $0 != ":" }.lowercased()
        return host == "localhost" || host.hasPrefix("127.") || url.hasPrefix("[::1]")
    }

    /// The URL and expressions of a feed of `kind` with its WebSocket options applied: a
    /// Jetstream's accounts and collections in its URL, a Nostr feed's filter (its `--author`s
    /// public keys, not an expression). Options of another kind are a usage error.
    static func applying(
        _ options: WebSocketOptions, authors: [String], kind: FeedKind?, url: String, expressions: FeedExpressions
    ) throws(FeedFailure) -> (url: String, expressions: FeedExpressions) {
        var expressions = expressions
        switch kind {
        case .jetstream?:
            guard !options.givesNostrFilter else {
                throw .usage("--nostr-kind, --tag and --since are for --kind nostr")
            }
            guard authors.count <= 1 else {
                throw .usage("--author is given once: a jq expression (for --kind nostr, public keys)")
            }
            // A URL that cannot be one is refused as given, not with parameters added.
            guard FeedRegistration.isValidURL(url, webSocket: true) else { return (url, expressions) }
            return (Jetstream.feedURL(url, dids: options.dids, collections: options.collections), expressions)
        case .nostr?:
            guard options.dids.isEmpty, options.collections.isEmpty else {
                throw .usage("--did and --collection are for --kind jetstream")
            }
            if let why = authors.lazy.compactMap(NostrFilter.whyNotAPublicKey).first { throw .usage(why) }
            expressions.author = nil
            expressions.nostr = options.nostrFilter(authors: authors)
            return (url, expressions)
        default:
            guard !options.isGiven else {
                throw .usage(
                    "--did and --collection are for --kind jetstream; --nostr-kind, --tag and --since for --kind nostr")
            }
            guard authors.count <= 1 else {
                throw .usage("--author is given once: a jq expression (for --kind nostr, public keys)")
            }
            return (url, expressions)
        }
    }

    static func validated(
        name: String, url: String, kind: FeedKind?, tokenEnv: String?, expressions: FeedExpressions,
        context: CommandContext
    ) throws(FeedFailure) -> FeedRegistration {
        guard FeedRegistration.isValidName(name) else {
            throw FeedFailure.usage("feed names use letters, digits, '.', '-' and '_' (at most 64): \(name)")
        }
        let webSocket = kind?.streamFormat?.isWebSocket ?? false
        if let why = whyRefused(url, webSocket: webSocket) { throw FeedFailure.configuration(why) }
        if webSocket, let kind, expressions.hasMapping || expressions.events != nil || expressions.catchUp != nil {
            throw FeedFailure.usage(
                "a \(kind.rawValue) feed's fields are the contract's; of the jq options it takes only --filter")
        }
        if expressions.hasMapping, let kind, !kind.usesExpressions, !kind.isStream {
            throw FeedFailure.usage(
                "--items, --id, --next-url and the other mapping options are for --kind json, not \(kind.rawValue)")
        }
        if expressions.catchUp != nil || expressions.catchUpItems != nil, !(kind?.isStream ?? false) {
            throw FeedFailure.usage(
                "--catch-up is for stream feeds over HTTP (--kind sse, ndjson, mastodon, wikimedia)")
        }
        if let catchUp = expressions.catchUp, let why = whyRefused(catchUp) {
            throw FeedFailure.configuration("--catch-up: " + why)
        }
        if let kind, kind.isStream,
            expressions.cursor != nil || expressions.cursorParam != nil || expressions.nextURL != nil
                || expressions.pageParam != nil
        {
            guard kind.streamFormat == .jsonLines, expressions.nextURL == nil, expressions.pageParam == nil else {
                throw FeedFailure.usage(
                    "a stream resumes by its last event id; only an ndjson feed takes --cursor EXPR --cursor-param NAME"
                )
            }
            if let problem = expressions.pagingProblem { throw FeedFailure.usage(problem) }
        }
        if expressions.events != nil, let kind, kind.streamFormat != .serverSentEvents {
            throw FeedFailure.usage(
                "--event is for Server-Sent Events feeds (--kind sse, mastodon, wikimedia), not \(kind.rawValue)")
        }
        let feed = FeedRegistration(
            name: name, url: url, kind: kind ?? (expressions.hasMapping ? .json : .linked),
            tokenEnv: tokenEnv, expressions: expressions)
        try check(feed, checksPaging: kind != nil || expressions.hasMapping, context: context)
        return feed
    }

    /// `feed` with its kind found out by asking its URL, unless the kind was given or its
    /// expressions make it `json`; what was found, for the person who asked.
    static func detected(
        _ feed: FeedRegistration, kindGiven: Bool, context: CommandContext
    ) throws -> (feed: FeedRegistration, found: String?, title: String?) {
        guard !kindGiven, !feed.expressions.hasMapping || feed.expressions.events != nil else {
            return (feed, nil, nil)
        }
        let detected = try context.withHTTPClient { http in
            let fetcher = FeedFetcher(
                http: http, workQueue: FeedEnvironment.workQueue, options: context.fetch,
                scheduler: context.interruptibleWaits(), random: { Double.random(in: 0...1) },
                environment: context.environment, logger: context.logger)
            return try KindDetection.detect(feed, fetcher: fetcher, maxBodySize: context.fetch.maxBodySize)
        }
        var chosen = feed
        chosen.kind = detected.kind
        if let url = detected.url { chosen.url = url }
        return (chosen, detected.summary, detected.title)
    }

    /// Compiles every expression the feed will run (jq's message is the usage error) and checks
    /// the paging options of a feed read by expressions.
    static func check(_ feed: FeedRegistration, checksPaging: Bool = true, context: CommandContext) throws(FeedFailure)
    {
        let expressions = feed.effectiveExpressions
        if checksPaging, feed.kind.usesExpressions, let problem = expressions.pagingProblem { throw .usage(problem) }
        for (option, expression) in expressions.expressions {
            do {
                try JQ.check(expression, limits: JQ.Limits(memory: context.fetch.jqMemory, timeout: .seconds(10)))
            } catch .unavailable(let message) {
                throw .configuration("\(option): \(message)")
            } catch {
                throw .usage("\(option) `\(TerminalText.safe(Excerpt.of(expression, limit: 60)))`: \(error)")
            }
        }
    }
}
