import FeedCore
import Foundation
import Testing

/// Read state a person can steer, short handles, and a CLI that follows its ecosystem (issue
/// 10), end to end through the binary.
@Suite("Reading: read state, handles, the CLI surface", .serialized, .timeLimit(.minutes(3)))
struct ReadingTests {
    let session = StoreSession()
    let first: PagedServer
    let second: PagedServer

    init() throws {
        first = try PagedServer(kind: .linked, count: 3, pageSize: 10)
        second = try PagedServer(kind: .jsonfeed, count: 2, pageSize: 10)
        try session.add("a", first.url, kind: "linked")
        try session.add("b", second.url, kind: "jsonfeed")
    }

    func feedcli(_ arguments: String...) throws -> FeedcliRun { try session.run(arguments) }

    func unread(_ feed: String) throws -> [String] {
        JSONLines.ids(try feedcli("list", feed, "--unread", "--jsonl").stdout)
    }

    @Test func plainOutputShowsHandlesThatCommandsAccept() throws {
        let synced = try feedcli("sync", "a")
        #expect(synced.stdout == "* @1 a: post 1\n* @2 a: post 2\n* @3 a: post 3\n")
        #expect(try feedcli("show", "@2").stdout.hasPrefix("[@2 a] post 2"))
        #expect(try feedcli("read", "@1", "@3").status == 0)
        #expect(try unread("a") == ["2"])
        #expect(try feedcli("unread", "@1").status == 0)
        #expect(try unread("a") == ["1", "2"])
        #expect(try feedcli("list", "a").stdout == "* @1 a: post 1\n* @2 a: post 2\n  @3 a: post 3\n")
    }

    @Test func readAndUnreadByIdInOneTransaction() throws {
        _ = try feedcli("sync")
        #expect(try feedcli("read", "1", "2", "--feed", "a").status == 0)
        #expect(try unread("a") == ["3"])
        let missing = try feedcli("read", "3", "nope", "--feed", "a")
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no entry nope in feed a"))
        #expect(try unread("a") == ["3"], "nothing changed")
        #expect(try feedcli("unread", "1", "--feed", "a").status == 0)
        #expect(try feedcli("next", "a", "--json").json.map { ($0 as? [String: Any])?["id"] as? String } == "1",
                "an entry marked unread comes again in its order")
        #expect(try feedcli("read", "--all", "b").status == 0)
        #expect(try unread("b").isEmpty && unread("a") == ["3"])
        #expect(try feedcli("read", "--all").status == 0)
        #expect(try unread("a").isEmpty)
        #expect(try feedcli("read", "--all", "nope").status == 66)
        #expect(try feedcli("read").status == 64, "nothing named")
    }

    @Test func nextAllDeliversTheOldestUnreadOfAllFeeds() throws {
        #expect(try feedcli("feeds", "rm", "posts").status == 0, "rm is remove's alias")
        let fetched = try feedcli("next", "--all", "--json")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.json.map { ($0 as? [String: Any])?["feed"] as? String } != nil, "nothing unread: every feed synced")
        var delivered: [String] = []
        while true {
            let run = try feedcli("next", "--all", "--json")
            guard run.status == 0, let entry = run.json as? [String: Any] else {
                #expect(run.status == 1)
                break
            }
            delivered.append("\(entry["feed"] ?? "")/\(entry["id"] ?? "")")
        }
        #expect(delivered.count == 4, "five entries in all, one delivered by the first run")
        #expect(first.requests.count == 2 && second.requests.count == 2,
                "fetched at the start and once more at the end (nothing unread), never while something was unread")
    }

    @Test func optionsBelongToTheCommandsThatUseThem() throws {
        _ = try feedcli("sync", "a")
        let forced = try Feedcli.run(["list", "--force", "--state", session.state])
        #expect(forced.status == 64 && forced.stderr.contains("--force"))
        #expect(!(try Feedcli.run(["list", "--help"])).stdout.contains("--timeout"))
        #expect((try Feedcli.run(["sync", "--help"])).stdout.contains("--timeout"))
        #expect(try feedcli("list", "a", "-n", "1", "-u").stdout == "* @3 a: post 3\n")
        #expect(try feedcli("sync", "b", "-q", "-v").status == 0)
        let both = try feedcli("list", "--json", "--jsonl")
        #expect(both.status == 64)
    }

    @Test func aMistypedCommandIsAUsageErrorThatNamesTheNearestOne() throws {
        for (arguments, suggestion) in [(["nxt"], "did you mean `next`?"), (["help", "nxt"], "did you mean `next`?"),
                                        (["feeds", "rmove", "x"], "did you mean `remove`?"), (["snyc"], "did you mean `sync`?")] {
            let run = try Feedcli.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(suggestion), "\(arguments): \(run.stderr)")
        }
        #expect(try Feedcli.run(["help", "next"]).status == 0)
    }
}
