import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedReactor
@testable import FeedStore

/// A run lives within its file-descriptor limit: `sync` of 80 feeds under a
/// low `ulimit -n` takes only the jobs the descriptors carry and finishes; a limit too low for
/// even one is a clear failure (78). Before, lock files failed with EMFILE and the run hung.
@Suite("Within the file-descriptor limit", .timeLimit(.minutes(3)))
struct DescriptorLimitTests {
    func session(feeds: Int) async throws -> (StoreSession, LoopbackServer) {
        let server = try LoopbackServer { request, connection in
            connection.respond(200, text: #"{"data":[{"id":"\#(request.path)"}],"paging":{}}"#)
        }
        let session = StoreSession()
        #expect(try await session.feedcli("feeds", "remove", "posts").status == 0)
        for n in 1...feeds { try await session.add("f\(n)", server.baseURL + "/g/\(n)", kind: "graph") }
        return (session, server)
    }

    @Test func eightyFeedsUnderALowLimitFinish() async throws {
        let (session, server) = try await session(feeds: 80)
        defer { withExtendedLifetime(server) {} }  // a server let go stops
        // `timeout`: the old hang ends as 124 rather than holding the suite.
        let run = try await Feedcli.shell(
            #"ulimit -n 24; timeout 60 "$FEEDCLI" sync --jsonl --retries 0 --state "$S""#,
            environment: ["S": session.state])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(JSONLines.ids(run.stdout).count == 80 && run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test func aLimitTooLowForOneFeedIsAClearFailure() async throws {
        let (session, server) = try await session(feeds: 3)
        defer { withExtendedLifetime(server) {} }
        let run = try await Feedcli.shell(
            #"ulimit -n 14; timeout 60 "$FEEDCLI" sync --retries 0 --state "$S""#,
            environment: ["S": session.state])
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("file descriptors are allowed (ulimit -n)"), "\(run.stderr)")
    }

    @Test func theJobsAreWhatTheLimitCarries() throws {
        let open = DescriptorBudget.openDescriptors()
        #expect(open >= 3, "stdin, stdout and stderr at least")
        #expect(try DescriptorBudget.jobs(8) <= 8)
        #expect(DescriptorBudget.raiseSoftLimit() >= open)
    }
}
