import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Testing

@testable import FeedModel
@testable import FeedPostgres
@testable import FeedStore

/// The PostgreSQL store's schema version: every run reads it first, from the function
/// `schema_version()` since migration v2 (a catalog a new backend has loaded), and from the
/// schema's comment on a store made before it, which feedcli before v2 reads too.
@Suite("PostgreSQL schema", .timeLimit(.minutes(1)))
struct PostgresSchemaTests {
    /// A store made at `url` as a command that writes makes it: opened, then used once (its
    /// first call reads the version `open` asked for and migrates).
    private static func makeStore(_ url: String) throws(FeedFailure) {
        guard let store = try PostgresStore.open(url: url, wait: .seconds(10)) else {
            throw FeedFailure.storeAccess("no store at \(url)")
        }
        _ = try store.feeds()
    }

    private static func comment(_ connection: PostgresConnection) throws(FeedFailure) -> String? {
        try connection.script("SELECT obj_description(to_regnamespace('feedcli'), 'pg_namespace')").row(0).text(0)
    }

    private static func connect(_ url: String) throws(FeedFailure) -> PostgresConnection {
        try PostgresConnection.connect(url: url, timeout: .seconds(10))
    }

    // Every test's statements wait on the server: they run on a thread of their own
    // (`onOwnThread`), and the test awaits what they answer.

    @Test func aNewStoreAnswersItsVersionFromTheFunctionAndTheComment() async throws {
        let url = try await PostgresDatabases.fresh()
        let (function, comment, entered) = try await onOwnThread {
            () throws(FeedFailure) -> (String?, String?, Int?) in
            try Self.makeStore(url)
            let connection = try Self.connect(url)
            return (
                try connection.script("SELECT feedcli.schema_version()").row(0).text(0), try Self.comment(connection),
                try PostgresSchema.enter(connection)
            )
        }
        let current = PostgresSchema.migrations.count
        #expect(function == String(current))
        #expect(comment == "feedcli schema, migrations: \(current)", "what feedcli before v2 reads")
        #expect(entered == current)
    }

    /// A store as feedcli before migration v2 left it (no function, its version in the comment)
    /// is read by the comment, migrated by the next run that writes, and answers by the function.
    @Test func aStoreFromBeforeTheFunctionIsReadByItsCommentAndMigrated() async throws {
        let url = try await PostgresDatabases.fresh()
        let answers = try await onOwnThread {
            () throws(FeedFailure) -> (
                entered: Int?, searchPath: String?, opened: Bool, function: String?, comment: String?
            ) in
            try Self.makeStore(url)
            let admin = try Self.connect(url)
            try admin.script(
                """
                DROP FUNCTION feedcli.schema_version();
                DELETE FROM feedcli.migration WHERE name LIKE 'v2:%';
                COMMENT ON SCHEMA feedcli IS 'feedcli schema, migrations: 1'
                """)
            let reader = try Self.connect(url)
            let entered = try PostgresSchema.enter(reader)
            let searchPath = try reader.script("SHOW search_path").row(0).text(0)
            let opened = try PostgresStore.open(url: url, wait: .seconds(10), access: .readOnly) != nil
            return (
                entered, searchPath, opened, try admin.script("SELECT feedcli.schema_version()").row(0).text(0),
                try Self.comment(admin)
            )
        }
        #expect(answers.entered == 1, "read by the comment")
        #expect(answers.searchPath == "feedcli", "the fallback set the search path")
        #expect(answers.opened)
        #expect(answers.function == String(PostgresSchema.migrations.count))
        #expect(answers.comment == "feedcli schema, migrations: \(PostgresSchema.migrations.count)")
    }

    /// A schema a newer feedcli made (its version past this feedcli's) is never written by this
    /// one (74, naming both versions); a command that reads still reads it
    /// (`schema_version()` 99 was read and written silently).
    @Test func aNewerSchemaIsReadButNeverWritten() async throws {
        let url = try await PostgresDatabases.fresh()
        let answers = try await onOwnThread {
            () throws(FeedFailure) -> (
                first: Result<[FeedRecord], FeedFailure>, later: Result<Bool, FeedFailure>, read: Bool,
                version: String?
            ) in
            try Self.makeStore(url)
            let admin = try Self.connect(url)
            try admin.script(
                "CREATE OR REPLACE FUNCTION feedcli.schema_version() RETURNS bigint IMMUTABLE LANGUAGE sql AS 'SELECT 99::bigint'"
            )
            guard let store = try PostgresStore.open(url: url, wait: .seconds(10)) else {
                throw FeedFailure.storeAccess("no store at \(url)")
            }
            let first = Result { () throws(FeedFailure) in try store.feeds() }
            let later = Result { () throws(FeedFailure) in try store.hasFeed(named: "posts") }
            let read = try PostgresStore.open(url: url, wait: .seconds(10), access: .readOnly) != nil
            return (first, later, read, try admin.script("SELECT feedcli.schema_version()").row(0).text(0))
        }
        let known = PostgresSchema.migrations.count
        let refusal = FeedFailure.storeAccess(
            StoreRules.newerSchema(Redaction.maskingSecrets(in: url), version: 99, known: known))
        #expect(throws: refusal, "the first call reads the version and refuses") { try answers.first.get() }
        #expect(throws: refusal, "and every call after it") { try answers.later.get() }
        #expect(answers.read, "read as it is")
        #expect(answers.version == "99", "nothing migrated back")
    }

    /// A store that writes asks for its version when it is opened and reads the answer at its
    /// first call, so the round trip runs beside what the command does in between: the schema
    /// of a new database is made by that call, not by `open`.
    @Test func aStoreThatWritesReadsItsVersionAtItsFirstCall() async throws {
        let url = try await PostgresDatabases.fresh()
        let answers = try await onOwnThread {
            () throws(FeedFailure) -> (afterOpen: Bool, afterCall: Bool, entered: Int?) in
            guard let store = try PostgresStore.open(url: url, wait: .seconds(10)) else {
                throw FeedFailure.storeAccess("no store at \(url)")
            }
            let admin = try Self.connect(url)
            let afterOpen = try PostgresSchema.exists(admin)
            _ = try store.feeds()
            return (afterOpen, try PostgresSchema.exists(admin), try PostgresSchema.enter(admin))
        }
        #expect(answers.afterOpen == false, "open only asked")
        #expect(answers.afterCall, "the first call migrated")
        #expect(answers.entered == PostgresSchema.migrations.count)
    }

    @Test func aDatabaseWithoutTheSchemaHasNoVersion() async throws {
        let connection = try await PostgresConnection.connect(url: try PostgresDatabases.fresh(), timeout: .seconds(10))
        #expect(try PostgresSchema.enter(connection) == nil)
        #expect(
            try connection.script("SELECT 1").row(0).text(0) == "1", "the connection is usable after the refused read")
    }
}
