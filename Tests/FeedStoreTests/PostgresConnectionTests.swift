import FeedBase
import FeedStoreTesting
import FeedTesting
import Glibc
import Testing

@testable import FeedModel
@testable import FeedPostgres

/// How a connection runs statements: unnamed on their first two uses, since preparing
/// is a round trip of its own that a short run such as `next` would pay, and prepared on the
/// third, so that a statement a sync repeats is parsed and planned once.
@Suite("PostgreSQL connection", .timeLimit(.minutes(1)))
struct PostgresConnectionTests {
    /// The connection's prepared statements, asked through `script` (the simple protocol, text
    /// results), which is never prepared and so does not count itself.
    private func preparedCount(_ connection: PostgresConnection) throws -> Int64? {
        let result = try connection.script("SELECT count(*) FROM pg_prepared_statements")
        return result.count == 1 ? result.row(0).text(0).flatMap { Int64($0) } : nil
    }

    /// Awaits `condition`, looking every 20 ms, for 30 s at most (a loaded machine); the caller
    /// goes on then whether it holds or not, and its expectations say which.
    private func awaitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test func aStatementIsPreparedOnItsThirdUseAndAnswersAlike() async throws {
        let connection = try await PostgresConnection.connect(url: try PostgresDatabases.fresh(), timeout: .seconds(10))
        let sql = "SELECT $1::bigint + 1"
        for (use, expectedPrepared) in [(1, 0), (2, 0), (3, 1), (4, 1)] {
            let answer = try connection.execute(sql, [PostgresValue(Int64(use))]).firstInteger()
            #expect(answer == Int64(use) + 1, "use \(use)")
            #expect(try preparedCount(connection) == Int64(expectedPrepared), "after use \(use)")
        }
    }

    /// A feed's unlock is sent without waiting for its answer (a round trip at the end of every
    /// run): the next statement reads and drops it first, a failing one too, and the unlock has
    /// taken effect for every other session by then.
    @Test func anUnansweredStatementIsDroppedBeforeTheNextAndHasRun() async throws {
        let url = try await PostgresDatabases.fresh()
        let holder = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        let other = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        #expect(try holder.execute("SELECT pg_try_advisory_lock(7)").row(0).bool(0))
        holder.sendDiscardingResult("SELECT pg_advisory_unlock(7)")
        #expect(try holder.execute("SELECT $1::bigint + 1", [PostgresValue(Int64(41))]).firstInteger() == 42)
        #expect(try other.execute("SELECT pg_try_advisory_lock(7)").row(0).bool(0), "the lock was let go")
        holder.sendDiscardingResult("SELECT 1 / 0")
        #expect(try holder.script("SELECT 2").row(0).text(0) == "2", "a failed unanswered statement changes nothing")
        holder.sendDiscardingResult("SELECT 3")
        try holder.send("SELECT 4")
        #expect(try holder.receive().firstInteger() == 4)
    }

    /// Statements in one flight (pipeline mode): answered in order, each its own statement; after
    /// a failing one the rest are not run, and the connection is back to one statement at a time.
    @Test func statementsInOneFlightAreAnsweredInOrderAndStopAtAFailure() async throws {
        let connection = try await PostgresConnection.connect(url: try PostgresDatabases.fresh(), timeout: .seconds(10))
        let answers = try connection.pipelined([
            ("SELECT pg_try_advisory_lock(11)", []),
            ("SELECT $1::bigint * 2", [PostgresValue(Int64(21))]),
        ])
        #expect(try answers.map { try $0.get().count } == [1, 1])
        #expect(try answers[0].get().row(0).bool(0), "the lock was taken")
        #expect(try answers[1].get().firstInteger() == 42)
        let failed = try connection.pipelined([
            ("SELECT 1 / $1::int", [PostgresValue(Int64(0))]),
            ("SELECT pg_advisory_unlock(11)", []),
        ])
        #expect { try failed[0].get() } throws: { ($0 as? FeedFailure)?.exitCode == 74 }
        #expect { try failed[1].get() } throws: { "\($0)".contains("not run") }
        #expect(
            try connection.script("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 11").row(0)
                .text(0) == "1",
            "the statement after the failure did not run: the lock is still held")
        #expect(try connection.execute("SELECT $1::bigint + 1", [PostgresValue(Int64(1))]).firstInteger() == 2)
    }

    /// Statements sent with a flight to be prepared are prepared by the server meanwhile: the
    /// connection's next statement reads their answers first, and the first run of one of them
    /// uses its name (nothing more is prepared); a flight that failed prepares nothing.
    @Test func statementsSentAheadArePreparedAndRunByName() async throws {
        let connection = try await PostgresConnection.connect(url: try PostgresDatabases.fresh(), timeout: .seconds(10))
        let ahead = "SELECT $1::bigint * 3"
        let answers = try connection.pipelined([("SELECT 1", [])], preparing: [(ahead, 1), (ahead, 1)])
        #expect(try answers[0].get().count == 1)
        #expect(try preparedCount(connection) == 1, "prepared once, read before the next statement")
        #expect(try connection.execute(ahead, [PostgresValue(Int64(5))]).firstInteger() == 15)
        #expect(try preparedCount(connection) == 1, "run by its name")
        let failed = try connection.pipelined(
            [("SELECT 1 / $1::int", [PostgresValue(Int64(0))])], preparing: [("SELECT 2", 0)])
        #expect { try failed[0].get() } throws: { ($0 as? FeedFailure)?.exitCode == 74 }
        #expect(try preparedCount(connection) == 1, "nothing prepared after a failure")
        #expect(try connection.script("SELECT 3").row(0).text(0) == "3")
    }

    /// A flight's answers come back before the statements sent with it to be prepared are done:
    /// the server is asked to send them at once (a flush), where it held them until the flight's
    /// end, so a `next` started its fetch only once the server had also parsed the three
    /// statements the run goes on with. Here another session's lock on a table holds up the
    /// preparation of a statement reading it (parsing takes the table's lock), not the answer.
    @Test func aFlightIsAnsweredBeforeItsPreparationsAreDone() async throws {
        let url = try await PostgresDatabases.fresh()
        let locked = Locked(false)
        let answered = Locked(false)
        let released = Locked(false)
        // Every statement runs on a thread of its own; the test awaits what they say.
        async let holding: Void = onOwnThread { () throws(FeedFailure) in
            let admin = try PostgresConnection.connect(url: url, timeout: .seconds(10))
            try admin.script("CREATE TABLE held (n int)")
            try admin.script("BEGIN; LOCK TABLE held IN ACCESS EXCLUSIVE MODE")
            locked.withLock { $0 = true }
            while !released.value { usleep(10_000) }
            try admin.script("COMMIT")
        }
        try await awaitUntil { locked.value }
        async let outcome = onOwnThread { () throws(FeedFailure) -> (beforeRelease: Bool, afterwards: Int64) in
            let connection = try PostgresConnection.connect(url: url, timeout: .seconds(10))
            let answers = try connection.pipelined([("SELECT 1", [])], preparing: [("SELECT count(*) FROM held", 0)])
            let beforeRelease = !released.value
            answered.withLock { $0 = true }
            _ = try answers[0].get()
            while !released.value { usleep(10_000) }
            return (beforeRelease, try connection.execute("SELECT count(*) FROM held").firstInteger() ?? -1)
        }
        // The lock is let go once the answer came, or after the bound, answered or not.
        try await awaitUntil { answered.value }
        released.withLock { $0 = true }
        try await holding
        let (beforeRelease, afterwards) = try await outcome
        #expect(
            beforeRelease, "the flight's answer waited for the table's lock: its statements' answers were not flushed")
        #expect(afterwards == 0, "the statement prepared ahead runs once the lock is let go")
    }

    /// `begin` seeds the random generator libpq's password exchange draws from: the process
    /// has it (OpenSSL, libcurl's dependency and libpq's), found by its C name.
    @Test func theRandomGeneratorOfThePasswordExchangeIsFoundAndSeeded() {
        #expect(PostgresConnectionAhead.primeRandomGenerator())
    }

    /// A connection begun ahead (as a command's context begins one) is the one a store opening
    /// that URL takes, once: while it is held, the database has two sessions (this test's and
    /// the store's), not three; a second opening connects anew, another URL is not served, and a
    /// connection that could not be made fails the opening with the reason connecting then gives.
    @Test func aConnectionBegunAheadIsTakenOnceByTheStoreThatOpensIt() async throws {
        let url = try await PostgresDatabases.fresh()
        let ahead = try #require(PostgresConnectionAhead.begin(url: url, timeout: .seconds(10)))
        let store = try await onOwnThread { () throws(FeedFailure) in
            try PostgresStore.open(url: url, wait: .seconds(10), ahead: ahead)
        }
        #expect(store != nil)
        let sessions = try await onOwnThread { () throws(FeedFailure) -> String? in
            let admin = try PostgresConnection.connect(url: url, timeout: .seconds(10))
            return try admin.script("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
                .row(0).text(0)
        }
        #expect(sessions == "2", "the store's session is the one begun ahead")
        let again = try await onOwnThread { () throws(FeedFailure) in try ahead.take(url: url) == nil }
        #expect(again, "taken once")
        withExtendedLifetime(store) {}

        let other = try #require(PostgresConnectionAhead.begin(url: url, timeout: .seconds(10)))
        #expect(try other.take(url: url + "?application_name=x") == nil, "another URL is not served")

        let refused = url.replacingOccurrences(of: "://feedcli:", with: "://feedcli:wrong")
        let direct = await onOwnThread { () -> String in
            do throws(FeedFailure) {
                _ = try PostgresConnection.connect(url: refused, timeout: .seconds(10))
                return "connected"
            } catch { return error.description }
        }
        let begun = try #require(PostgresConnectionAhead.begin(url: refused, timeout: .seconds(10)))
        let viaAhead = await onOwnThread { () -> String in
            do throws(FeedFailure) {
                _ = try PostgresStore.open(url: refused, wait: .seconds(10), ahead: begun)
                return "opened"
            } catch { return error.description }
        }
        #expect(direct.contains("password authentication failed"), "\(direct)")
        #expect(viaAhead == direct)
    }

    /// A connection lost with a flight's prepared statements still to read: the next statement
    /// reads what there is, ends, and says the connection was lost (75), rather than waiting.
    @Test func aFlightLeftOpenOnALostConnectionEndsInA75() async throws {
        let url = try await PostgresDatabases.fresh()
        let connection = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        let admin = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        let pid = try #require(connection.script("SELECT pg_backend_pid()").row(0).text(0))
        _ = try connection.pipelined([("SELECT 1", [])], preparing: [("SELECT 2", 0)])
        try admin.script("SELECT pg_terminate_backend(\(pid), 5000)")
        #expect { try connection.execute("SELECT 1") } throws: { ($0 as? FeedFailure)?.exitCode == 75 }
    }
}
