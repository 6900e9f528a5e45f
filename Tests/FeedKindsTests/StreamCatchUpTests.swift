import Testing

@testable import FeedKinds

/// Which REST timeline a Mastodon streaming URL mirrors (the docs' streams, `methods/streaming`).
@Suite("Mastodon: the timeline of a stream")
struct StreamCatchUpTests {
    @Test(arguments: [
        ("https://m.example/api/v1/streaming/user", "https://m.example/api/v1/timelines/home"),
        ("https://m.example/api/v1/streaming/public", "https://m.example/api/v1/timelines/public"),
        (
            "https://m.example/api/v1/streaming/public/local?only_media=true",
            "https://m.example/api/v1/timelines/public?local=true&only_media=true"
        ),
        ("https://m.example/api/v1/streaming/public/remote", "https://m.example/api/v1/timelines/public?remote=true"),
        (
            "https://m.example/api/v1/streaming/hashtag?tag=caf%C3%A9",
            "https://m.example/api/v1/timelines/tag/caf%C3%A9"
        ),
        (
            "https://m.example/api/v1/streaming/hashtag/local?tag=swift",
            "https://m.example/api/v1/timelines/tag/swift?local=true"
        ),
        ("https://m.example/api/v1/streaming/list?list=12", "https://m.example/api/v1/timelines/list/12"),
        (
            "https://m.example/api/v1/streaming?stream=public:local",
            "https://m.example/api/v1/timelines/public?local=true"
        ),
    ])
    func aStreamMapsToItsTimeline(streaming: String, timeline: String) {
        #expect(StreamCatchUp.mastodonTimeline(forStreaming: streaming) == timeline)
    }

    @Test func streamsWithoutATimelineHaveNoCatchUp() {
        #expect(
            StreamCatchUp.mastodonTimeline(forStreaming: "https://m.example/api/v1/streaming/user/notification") == nil)
        #expect(StreamCatchUp.mastodonTimeline(forStreaming: "https://m.example/api/v1/streaming/hashtag") == nil)
        #expect(StreamCatchUp.mastodonTimeline(forStreaming: "https://example.com/events") == nil)
    }
}
