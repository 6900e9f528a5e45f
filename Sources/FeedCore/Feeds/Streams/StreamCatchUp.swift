import FeedJQ
import FeedModel
import FoundationEssentials

/// How a stream feed catches up after every (re)connection with what its server sent while no
/// connection was open, for servers that cannot replay (Mastodon keeps no `Last-Event-ID`):
/// through a polled URL read as a page, its entries unique by id like the stream's.
///
/// - `--catch-up URL` (any stream feed): one request; its items by `--catch-up-items` (default
///   `.[]`) and the feed's field expressions, its filter applied.
/// - The `mastodon` preset: the REST timeline its streaming URL mirrors, paged forward with
///   `min_id` from the newest stored status (then from the newest of each page) until a page is
///   empty. Never `since_id`, which answers the newest page and leaves a hole below it.
package struct StreamCatchUp: Sendable {
    package enum Paging: Sendable, Equatable {
        case once
        /// Mastodon's `min_id`: the statuses just after it, newest first.
        case minID
    }

    package var url: String
    package var paging: Paging
    package var format: any PageFormat
    /// The most requests one catch-up makes.
    package var maxPages: Int

    /// The catch-up of `registration`, nil when it has none.
    package static func of(_ registration: FeedRegistration, jq: JQ.Limits, maxPages: Int) -> StreamCatchUp? {
        let expressions = registration.effectiveExpressions
        var reading = registration
        reading.expressions.catchUp = nil
        reading.expressions.catchUpItems = nil
        reading.expressions.events = nil
        if let url = expressions.catchUp {
            // Read as a `json` feed with the same field expressions, over the catch-up's items.
            reading.kind = .json
            reading.expressions = expressions.merging(FeedExpressions(items: expressions.catchUpItems ?? ".[]"))
            reading.expressions.catchUp = nil
            reading.expressions.catchUpItems = nil
            reading.expressions.events = nil
            guard let format = reading.pageFormat(jq: jq) else { return nil }
            return StreamCatchUp(url: url, paging: .once, format: format, maxPages: 1)
        }
        guard registration.kind == .mastodon, let timeline = mastodonTimeline(forStreaming: registration.url) else {
            return nil
        }
        // A timeline is an array of statuses, read by the same rules as the stream's `update`s.
        reading.kind = .linked
        guard let format = reading.pageFormat(jq: jq) else { return nil }
        return StreamCatchUp(url: timeline, paging: .minID, format: format, maxPages: maxPages)
    }

    /// The REST timeline of a Mastodon streaming URL (`/api/v1/streaming/public` →
    /// `/api/v1/timelines/public`, `…/user` → `…/timelines/home`, `…/hashtag?tag=x` →
    /// `…/timelines/tag/x`, `…/list?list=1` → `…/timelines/list/1`, `/local` as `local=true`);
    /// nil for a stream without one (notifications). On the streaming URL's host: a server whose
    /// streaming host differs takes `--catch-up` with its API's timeline.
    package static func mastodonTimeline(forStreaming url: String) -> String? {
        let marker = "/api/v1/streaming"
        let characters = Array(url)
        let needle = Array(marker)
        guard let start = characters.indices.first(where: { characters[$0...].starts(with: needle) }) else {
            return nil
        }
        let base = String(characters[..<start])
        let rest = String(characters[(start + needle.count)...])
        let path = String(rest.prefix { $0 != "?" && $0 != "#" })
        var stream = path.split(separator: "/").map(String.init)
        if stream.isEmpty, let named = URLQuery.value(of: "stream", in: url) {
            stream = named.split(separator: ":").map(String.init)
        }
        var timeline: String
        switch stream.first {
        case "user" where stream.count == 1: timeline = base + "/api/v1/timelines/home"
        case "public": timeline = base + "/api/v1/timelines/public"
        case "hashtag":
            guard let tag = URLQuery.value(of: "tag", in: url), !tag.isEmpty else { return nil }
            timeline = base + "/api/v1/timelines/tag/" + URLQuery.encode(tag)
        case "list":
            guard let list = URLQuery.value(of: "list", in: url), !list.isEmpty else { return nil }
            timeline = base + "/api/v1/timelines/list/" + URLQuery.encode(list)
        default: return nil
        }
        if stream.contains("local") { timeline = URLQuery.setting("local", to: "true", in: timeline) }
        if stream.contains("remote") { timeline = URLQuery.setting("remote", to: "true", in: timeline) }
        if let onlyMedia = URLQuery.value(of: "only_media", in: url) {
            timeline = URLQuery.setting("only_media", to: onlyMedia, in: timeline)
        }
        return timeline
    }
}
