import FoundationEssentials

/// The presets: `json` mappings shipped for the public APIs people poll, one place for all of
/// them. Each is an ordinary set of jq expressions (`feeds list --json` shows it, so a user can
/// copy one into `--kind json` and change it), with the API's own paging.
package struct FeedPreset: Sendable {
    package let expressions: FeedExpressions
    /// Where the API is documented.
    package let documentation: String
    /// The kind in words, for messages ("a Reddit listing").
    package let describedAs: String

    fileprivate init(_ describedAs: String, documentation: String, _ expressions: FeedExpressions) {
        self.expressions = expressions
        self.documentation = documentation
        self.describedAs = describedAs
    }
}

extension FeedKind {
    /// The shipped mapping of a preset kind; nil for the others.
    package var preset: FeedPreset? {
        switch self {
        case .indexed, .graph, .jsonfeed, .linked, .json, .sse, .ndjson, .jetstream, .nostr: nil
        case .mastodon:
            // /api/v1/streaming/…: `update` events carry a status (the default fields read it:
            // id, content, account.acct, created_at, url); `delete` (a bare id), `notification`
            // and the rest are not entries.
            FeedPreset(
                "Mastodon's streaming API", documentation: "https://docs.joinmastodon.org/methods/streaming/",
                FeedExpressions(events: ["update"]))
        case .wikimedia:
            // EventStreams (stream.wikimedia.org/v2/stream/…): several events can share one SSE
            // id, so entries are keyed by the event's own `meta.id`.
            FeedPreset(
                "Wikimedia EventStreams",
                documentation: "https://wikitech.wikimedia.org/wiki/Event_Platform/EventStreams_HTTP_Service",
                FeedExpressions(
                    id: ".meta.id", title: ".title", text: ".comment // .parsedcomment", url: ".meta.uri",
                    author: ".user", published: ".meta.dt"))
        case .reddit:
            // A subreddit's /new.json: a Listing of t3 things; `after` is the next page's cursor.
            // The link is the post's page on reddit.com (its permalink), not the linked site.
            FeedPreset(
                "a Reddit listing", documentation: "https://www.reddit.com/dev/api/#GET_new",
                FeedExpressions(
                    items: ".data.children[].data", id: ".name", title: ".title", text: #".selftext | select(. != "")"#,
                    url:
                        #"if (.permalink | type) == "string" then "https://www.reddit.com" + .permalink else null end"#,
                    author: ".author", published: ".created_utc",
                    cursor: ".data.after", cursorParam: "after"))
        case .bluesky:
            // app.bsky.feed.getAuthorFeed (and getTimeline, getFeed): {feed: [{post: {uri, author,
            // record: {text, createdAt}}}], cursor}; getQuotes, searchPosts and getPosts answer
            // {posts: [the same post], cursor}. Anything else is said in feed terms, not jq's.
            // The web address is built from the at:// URI's record key and the author's handle,
            // and is null when either is missing (never `…/profile/null/…`).
            FeedPreset(
                "a Bluesky feed or post list",
                documentation: "https://docs.bsky.app/docs/api/app-bsky-feed-get-author-feed",
                FeedExpressions(
                    items: #"""
                        if (.feed | type) == "array" then .feed[].post elif (.posts | type) == "array" then .posts[] \#
                        else error("this is not a Bluesky feed: it has neither feed[] (getAuthorFeed, getTimeline, \#
                        getFeed) nor posts[] (getQuotes, searchPosts, getPosts)") end
                        """#, id: ".uri", text: ".record.text",
                    url:
                        #"if (.author.handle | type) == "string" and (.uri | type) == "string" then "https://bsky.app/profile/\(.author.handle)/post/\(.uri | split("/") | last)" else null end"#,
                    author: ".author.handle", published: ".record.createdAt", cursor: ".cursor", cursorParam: "cursor"))
        case .discourse:
            // /latest.json: {topic_list: {topics, more_topics_url}}; the next page's URL comes
            // without `.json` (`/latest?page=1`), so it is added before the query. /posts.json
            // (the latest posts across topics): {latest_posts: [{id, username, cooked, post_url,
            // topic_title…}]}, older pages by `before` = the lowest id seen, until one is empty.
            FeedPreset(
                "a Discourse topic or post list",
                documentation: "https://docs.discourse.org/#tag/Topics/operation/listLatestTopics",
                FeedExpressions(
                    items: #"""
                        if (.topic_list.topics | type) == "array" then .topic_list.topics[] \#
                        elif (.latest_posts | type) == "array" then .latest_posts[] \#
                        else error("this is not a Discourse list: it has neither topic_list.topics (/latest.json) \#
                        nor latest_posts (/posts.json)") end
                        """#, id: ".id", title: ".title // .topic_title", text: ".cooked // .excerpt",
                    url: #"""
                        if (.post_url | type) == "string" then .post_url \#
                        elif (.slug | type) == "string" and (.id | type) == "number" then "/t/\(.slug)/\(.id)" else null end
                        """#,
                    author: ".username", published: ".created_at",
                    nextURL: #"""
                        if .topic_list then .topic_list.more_topics_url // empty | split("?") \#
                        | .[0] + ".json" + (if length > 1 then "?" + (.[1:] | join("?")) else "" end) \#
                        else [.latest_posts[]?.id | numbers] | min // empty | "posts.json?before=\(.)" end
                        """#
                ))
        case .hn:
            // Hacker News through Algolia's search_by_date: {hits, page, nbPages}, pages from 0.
            // A story without a url (Ask HN) links to its item page.
            FeedPreset(
                "a Hacker News search (Algolia)", documentation: "https://hn.algolia.com/api",
                FeedExpressions(
                    items: ".hits[]", id: ".objectID", title: ".title // .story_title",
                    text: ".story_text // .comment_text",
                    url:
                        #"(.url | select(. != null and . != "")) // "https://news.ycombinator.com/item?id=\(.objectID)""#,
                    author: ".author", published: ".created_at", pageParam: "page", firstPage: 0))
        case .lemmy:
            // /api/v3/post/list: {posts: [{post, creator, community, counts}], next_page}; the
            // cursor goes back as `page_cursor` (Lemmy 0.19). Older servers send times without a zone (UTC).
            FeedPreset(
                "a Lemmy post list", documentation: "https://join-lemmy.org/api/classes/LemmyHttp.html#getPosts",
                FeedExpressions(
                    items: ".posts[]", id: ".post.id", title: ".post.name", text: ".post.body", url: ".post.ap_id",
                    author: ".creator.name",
                    published:
                        #".post.published | if type != "string" or test("(Z|[+-][0-9][0-9]:?[0-9][0-9])$") then . else . + "Z" end"#,
                    cursor: ".next_page", cursorParam: "page_cursor"))
        case .stackexchange:
            // /2.3/questions: {items, has_more, quota_max}, pages from 1. `body` only with a filter
            // that includes it (`filter=withbody`).
            FeedPreset(
                "a Stack Exchange question list", documentation: "https://api.stackexchange.com/docs/questions",
                FeedExpressions(
                    items: ".items[]", id: ".question_id", title: ".title", text: ".body", url: ".link",
                    author: ".owner.display_name", published: ".creation_date", pageParam: "page", firstPage: 1))
        }
    }

    /// Whether the kind reads responses with jq expressions (`json` and the presets).
    package var usesExpressions: Bool { self == .json || preset != nil }
}

extension FeedRegistration {
    /// The expressions the feed is read with: a preset's, with what the user gave over them
    /// (a filter, a changed field); the user's alone for other kinds.
    public var effectiveExpressions: FeedExpressions {
        kind.preset.map { $0.expressions.merging(expressions) } ?? expressions
    }
}
