import CPostgres
import FeedBase
import FeedModel
import FeedStoreContract

/// One libpq connection: statements prepared once and run with parameters, failures turned into
/// the exit statuses the contract gives them.
///
/// Not thread-safe (libpq's rule for a connection): `PostgresStore` uses it under its lock.
package final class PostgresConnection {
    private let handle: OpaquePointer
    /// The URL with its password masked, for messages.
    package let location: String
    /// Statements prepared on this connection, by their SQL.
    private var prepared: [String: String] = [:]

    private init(handle: OpaquePointer, location: String) {
        self.handle = handle
        self.location = location
    }

    deinit { cpg_finish(handle) }

    /// Connects to the database `url` names. No server there, a refused password, a missing
    /// database: 74 with libpq's reason (`open` creates nothing then).
    package static func connect(url: String, timeout: Duration) throws(FeedFailure) -> PostgresConnection {
        let location = Redaction.maskingSecrets(in: url)
        if let failure = cpg_load() { throw .storeAccess("\(location): \(String(cString: failure))") }
        ProcessOpenSSL.skipExitCleanup()
        let seconds = Int32(clamping: max(2, timeout.components.seconds))
        guard let handle = cpg_connect(url, seconds) else { throw .storeAccess("\(location): out of memory") }
        let connection = PostgresConnection(handle: handle, location: location)
        guard cpg_ok(handle) != 0 else {
            throw .storeAccess("\(location): \(Self.oneLine(String(cString: cpg_error(handle))))")
        }
        return connection
    }

    /// Whether the connection is still up (false once the server went away).
    package var isUp: Bool { cpg_ok(handle) != 0 }

    /// Runs `sql` with `parameters` (`$1`, `$2`, …) and returns its result. A statement runs
    /// unnamed the first times this connection sees it (parse, plan and run in one round trip:
    /// most of a short run's statements run once or twice) and is prepared on its third use, so
    /// one that repeats (a sync's batches, a walk's pages) is parsed and planned once per run.
    /// Preparing is a round trip of its own: a bare `next` runs its feed's record query twice
    /// (listed, then under the lock), and preparing it there cost more than a second parse.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(FeedFailure) -> PostgresResult {
        settlePending()
        let name = try preparedName(sql, parameters: parameters.count)
        return try withParameters(parameters) { count, values, lengths, formats throws(FeedFailure) in
            if let name { return try check(cpg_exec_prepared(handle, name, count, values, lengths, formats), sql: sql) }
            return try check(cpg_exec_params(handle, sql, count, values, lengths, formats), sql: sql)
        }
    }

    /// Sends `sql` without waiting for its result, which `receive()` reads: the server works on
    /// it while the client does something else (a listing decodes one batch while the next is
    /// fetched). One statement may be outstanding at a time.
    package func send(_ sql: String, _ parameters: [PostgresValue] = []) throws(FeedFailure) {
        settlePending()
        let name = try preparedName(sql, parameters: parameters.count)
        let sent = withParameters(parameters) { count, values, lengths, formats in
            if let name { return cpg_send_prepared(handle, name, count, values, lengths, formats) }
            return cpg_send_params(handle, sql, count, values, lengths, formats)
        }
        if sent == 0 { throw lost(String(cString: cpg_error(handle))) }
    }

    /// The result of the statement `send` sent (every result read, so the connection is free).
    package func receive() throws(FeedFailure) -> PostgresResult {
        let first = cpg_get_result(handle)
        while let more = cpg_get_result(handle) { cpg_clear(more) }
        return try check(first, sql: "")
    }

    /// Sends `sql` for its effect alone: nothing waits for its result, which the connection's
    /// next statement reads and drops first (or nothing does, when the run ends and the
    /// connection closes: the server has run it by then). For a feed's unlock at the end of its
    /// work, which was a round trip of its own at the end of every run; its failure was ignored
    /// before as now (a lost connection lets the lock go with the session).
    package func sendDiscardingResult(_ sql: String, _ parameters: [PostgresValue] = []) {
        settlePending()
        let sent = withParameters(parameters) { count, values, lengths, formats in
            cpg_send_params(handle, sql, count, values, lengths, formats)
        }
        awaitsUnansweredResult = sent != 0
    }

    /// Runs `statements` in one flight (libpq's pipeline mode): all are sent before any answer is
    /// read, so together they cost one round trip, yet each is a statement of its own with its
    /// own snapshot, taken when it starts (a read after taking a lock sees what the lock's last
    /// holder committed, which one statement doing both would not). Each statement's result or
    /// failure, in order; after a failure the rest are not run. Throws only when the connection
    /// is lost. With a libpq older than 14, a round trip each.
    ///
    /// `preparing`: statements the caller expects to run soon, sent in the same flight to be
    /// prepared (parsed, their tables' and indexes' catalog entries loaded), which the server does
    /// while the caller does something else (a fetch); their answers are read before the
    /// connection's next statement, and a statement prepared so runs by its name. The server is
    /// asked to send the statements' answers before it prepares (a flush request): it holds
    /// what it answers until a flight's end otherwise, and the caller's fetch waited for the
    /// preparations (catalog lookups of a new session: a millisecond or more of a `next`).
    package func pipelined(
        _ statements: [(sql: String, parameters: [PostgresValue])], preparing: [(sql: String, parameters: Int)] = []
    ) throws(FeedFailure) -> [Result<PostgresResult, FeedFailure>] {
        settlePending()
        guard cpg_enter_pipeline(handle) != 0 else { return try oneAtATime(statements) }
        var sent = statements.allSatisfy { statement in
            withParameters(statement.parameters) { count, values, lengths, formats in
                cpg_send_params(handle, statement.sql, count, values, lengths, formats) != 0
            }
        }
        var ahead: [(sql: String, name: String)] = []
        if sent, !preparing.isEmpty { _ = cpg_send_flush_request(handle) }
        for statement in preparing
        where sent && prepared[statement.sql] == nil && !ahead.contains(where: { $0.sql == statement.sql }) {
            let name = "feedcli_ahead_\(prepared.count + ahead.count + 1)"
            sent = cpg_send_prepare(handle, name, statement.sql, Int32(statement.parameters)) != 0
            if sent { ahead.append((statement.sql, name)) }
        }
        var answers: [OpaquePointer] = []
        if sent, cpg_pipeline_sync(handle) != 0 {
            // Each statement's result is followed by a NULL; two in a row: the connection is gone.
            var nulls = 0
            while answers.count < statements.count, nulls < 2 {
                guard let result = cpg_get_result(handle) else {
                    nulls += 1
                    continue
                }
                nulls = 0
                answers.append(result)
            }
        }
        guard answers.count == statements.count else {
            answers.forEach { cpg_clear($0) }
            finishFlight([])
            throw lost(String(cString: cpg_error(handle)))
        }
        // The statements' answers are in; the prepared ones' are read when the server has done
        // them, before the next statement (`settlePending`).
        if ahead.isEmpty { finishFlight([]) } else { preparingAhead = ahead }
        return answers.enumerated().map { index, answer in
            if cpg_result_is_aborted(answer) != 0 {
                cpg_clear(answer)
                return .failure(.storeAccess("\(location): not run: a statement before it in its flight failed"))
            }
            return Result { () throws(FeedFailure) in try check(answer, sql: statements[index].sql) }
        }
    }

    /// `pipelined` without pipeline mode: a round trip each, the rest not run after a failure.
    private func oneAtATime(
        _ statements: [(sql: String, parameters: [PostgresValue])]
    ) throws(FeedFailure) -> [Result<PostgresResult, FeedFailure>] {
        var results: [Result<PostgresResult, FeedFailure>] = []
        for statement in statements {
            if case .failure? = results.last {
                results.append(.failure(.storeAccess("\(location): not run: a statement before it failed")))
                continue
            }
            do throws(FeedFailure) {
                results.append(.success(try execute(statement.sql, statement.parameters)))
            } catch {
                guard isUp else { throw error }
                results.append(.failure(error))
            }
        }
        return results
    }

    /// Whether a statement `sendDiscardingResult` sent may still have results to read.
    private var awaitsUnansweredResult = false

    /// Statements a flight sent to be prepared (`pipelined(_:preparing:)`), whose answers and
    /// the flight's end are still to read; nil when no flight is open.
    private var preparingAhead: [(sql: String, name: String)]?

    /// Reads what a flight has left: the answers of the statements sent to be prepared (each one
    /// prepared runs by its name from now on), then the flight's end, and leaves pipeline mode.
    private func finishFlight(_ ahead: [(sql: String, name: String)]) {
        var waiting = ahead[...]
        // Two NULLs in a row: the connection is gone, nothing more will come. At most the
        // prepared statements' answers and the sync's mark come (a lost connection's error
        // more): the reading ends whatever libpq gives.
        var nulls = 0
        var results = 0
        while nulls < 2, results <= ahead.count + 2 {
            guard let result = cpg_get_result(handle) else {
                nulls += 1
                continue
            }
            nulls = 0
            results += 1
            defer { cpg_clear(result) }
            if cpg_result_is_sync(result) != 0 { break }
            if let statement = waiting.popFirst(), cpg_result_ok(result) != 0 {
                prepared[statement.sql] = statement.name
            }
        }
        _ = cpg_exit_pipeline(handle)
    }

    /// Reads what earlier statements left to read: a flight's prepared statements, an unanswered
    /// statement's result. Every statement begins with it.
    private func settlePending() {
        if let ahead = preparingAhead {
            preparingAhead = nil
            finishFlight(ahead)
        }
        guard awaitsUnansweredResult else { return }
        awaitsUnansweredResult = false
        while let result = cpg_get_result(handle) { cpg_clear(result) }
    }

    /// How often each statement not prepared yet ran, unnamed, on this connection.
    private var unnamedRuns: [String: Int] = [:]
    /// The use on which a statement is prepared.
    private static let preparedFromUse = 3

    /// The name `sql` is prepared under, preparing it on its third use; nil before.
    private func preparedName(_ sql: String, parameters: Int) throws(FeedFailure) -> String? {
        if let known = prepared[sql] { return known }
        let runs = unnamedRuns[sql, default: 0]
        guard runs + 1 >= Self.preparedFromUse else {
            unnamedRuns[sql] = runs + 1
            return nil
        }
        unnamedRuns[sql] = nil
        let name = "feedcli_\(prepared.count + 1)"
        _ = try check(cpg_prepare(handle, name, sql, Int32(parameters)), sql: sql)
        prepared[sql] = name
        return name
    }

    /// Runs statements without parameters (the schema's migrations), several at once, in one
    /// round trip; the last one's result, in text.
    @discardableResult
    package func script(_ sql: String) throws(FeedFailure) -> PostgresResult {
        settlePending()
        return try check(cpg_exec(handle, sql), sql: sql)
    }

    /// `script`, or nil when the server refused it with one of `states` (SQLSTATEs it expects
    /// and has an answer for, such as an object an older schema lacks): the statements run as
    /// one implicit transaction, so none of them has taken effect then.
    package func script(_ sql: String, nilWhen states: Set<String>) throws(FeedFailure) -> PostgresResult? {
        settlePending()
        return try checked(cpg_exec(handle, sql), sql: sql, nilWhen: states)
    }

    /// Sends `script`'s statements without waiting for their answer, which
    /// `receiveScript(_:nilWhen:)` reads: the server runs them while the client does something
    /// else. Nothing else may be sent before that answer is read.
    package func sendScript(_ sql: String) throws(FeedFailure) {
        settlePending()
        if cpg_send_query(handle, sql) == 0 { throw lost(String(cString: cpg_error(handle))) }
    }

    /// The answer to the statements `sendScript(sql)` sent, as `script(_:nilWhen:)` gives it: the
    /// last statement's result, the first failure's when one failed (the rest did not run), nil
    /// when that failure is one of `states`.
    package func receiveScript(_ sql: String, nilWhen states: Set<String>) throws(FeedFailure) -> PostgresResult? {
        var answer: OpaquePointer?
        while let result = cpg_get_result(handle) {
            if let kept = answer, cpg_result_ok(kept) == 0 {
                cpg_clear(result)  // after a failure: nothing more is kept
                continue
            }
            if let kept = answer { cpg_clear(kept) }
            answer = result
        }
        return try checked(answer, sql: sql, nilWhen: states)
    }

    /// `result`, nil when the server refused the statement with one of `states`, else `check`'s.
    private func checked(_ result: OpaquePointer?, sql: String, nilWhen states: Set<String>) throws(FeedFailure)
        -> PostgresResult?
    {
        guard let result else { throw lost(String(cString: cpg_error(handle))) }
        if cpg_result_ok(result) == 0, let state = cpg_result_sqlstate(result).map({ String(cString: $0) }),
            states.contains(state)
        {
            cpg_clear(result)
            return nil
        }
        return try check(result, sql: sql)
    }

    /// Calls `body` with libpq's parameter arrays for `parameters`, valid during the call
    /// (`PostgresParameters`).
    private func withParameters<T, E: Error>(
        _ parameters: [PostgresValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws(E)
            -> T
    ) throws(E) -> T {
        try PostgresParameters(parameters).withArrays(body)
    }

    /// The result, or the failure it stands for: a lost connection, a server going down, a
    /// serialization failure or a lock another run holds too long is temporary (75, the next run
    /// goes on); anything else is a failure of the store (74) with the server's message.
    private func check(_ result: OpaquePointer?, sql: String) throws(FeedFailure) -> PostgresResult {
        guard let result else { throw lost(String(cString: cpg_error(handle))) }
        let owned = PostgresResult(result)
        if cpg_result_ok(result) != 0 { return owned }
        let message = Self.oneLine(String(cString: cpg_result_error(result)))
        guard let state = cpg_result_sqlstate(result).map({ String(cString: $0) }) else {
            throw lost(message.isEmpty ? String(cString: cpg_error(handle)) : message)
        }
        if Self.temporaryStates.contains(where: state.hasPrefix) || !isUp {
            throw .temporary("\(location): \(message)")
        }
        throw .storeAccess("\(location): \(message)")
    }

    private func lost(_ message: String) -> FeedFailure {
        .temporary("\(location): the connection to the database was lost: \(Self.oneLine(message))")
    }

    /// SQLSTATE classes and codes that a later run can expect to pass: connection exceptions (08),
    /// serialization failures and deadlocks (40001, 40P01), too many connections (53300), a lock
    /// not available (55P03), the server shutting down or restarting (57P01–57P03).
    private static let temporaryStates = ["08", "40001", "40P01", "53300", "55P03", "57P01", "57P02", "57P03"]

    /// libpq's multi-line messages on one line (a message on stderr is one line).
    package static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline)
            .map { line in line.drop { $0 == " " || $0 == "\t" } }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
