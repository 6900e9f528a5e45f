import FeedStoreContract
import FeedStoreTesting
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
    private func makeStore(_ url: String) throws {
        _ = try #require(try PostgresStore.open(url: url, wait: .seconds(10))).feeds()
    }

    private func comment(_ connection: PostgresConnection) throws -> String? {
        try connection.script("SELECT obj_description(to_regnamespace('feedcli'), 'pg_namespace')").row(0).text(0)
    }

    @Test func aNewStoreAnswersItsVersionFromTheFunctionAndTheComment() async throws {
        let url = try await PostgresDatabases.fresh()
        try makeStore(url)
        let connection = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        let current = PostgresSchema.migrations.count
        #expect(try connection.script("SELECT feedcli.schema_version()").row(0).text(0) == String(current))
        #expect(try comment(connection) == "feedcli schema, migrations: \(current)", "what feedcli before v2 reads")
        #expect(try PostgresSchema.enter(connection) == current)
    }

    /// A store as feedcli before migration v2 left it (no function, its version in the comment)
    /// is read by the comment, migrated by the next run that writes, and answers by the function.
    @Test func aStoreFromBeforeTheFunctionIsReadByItsCommentAndMigrated() async throws {
        let url = try await PostgresDatabases.fresh()
        try makeStore(url)
        let admin = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        try admin.script(
            """
            DROP FUNCTION feedcli.schema_version();
            DELETE FROM feedcli.migration WHERE name LIKE 'v2:%';
            COMMENT ON SCHEMA feedcli IS 'feedcli schema, migrations: 1'
            """)
        let reader = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        #expect(try PostgresSchema.enter(reader) == 1, "read by the comment")
        #expect(try reader.script("SHOW search_path").row(0).text(0) == "feedcli", "the fallback set the search path")
        #expect(try PostgresStore.open(url: url, wait: .seconds(10), access: .readOnly) != nil)
        #expect(
            try admin.script("SELECT feedcli.schema_version()").row(0).text(0)
                == String(PostgresSchema.migrations.count))
        #expect(try comment(admin) == "feedcli schema, migrations: \(PostgresSchema.migrations.count)")
    }

    /// A schema a newer feedcli made (its version past this feedcli's) is never written by this
    /// one (74, naming both versions); a command that reads still reads it
    /// (`schema_version()` 99 was read and written silently).
    @Test func aNewerSchemaIsReadButNeverWritten() async throws {
        let url = try await PostgresDatabases.fresh()
        try makeStore(url)
        let admin = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        try admin.script(
            "CREATE OR REPLACE FUNCTION feedcli.schema_version() RETURNS bigint IMMUTABLE LANGUAGE sql AS 'SELECT 99::bigint'"
        )
        let known = PostgresSchema.migrations.count
        let refusal = FeedFailure.storeAccess(
            StoreRules.newerSchema(Redaction.maskingSecrets(in: url), version: 99, known: known))
        let store = try #require(try PostgresStore.open(url: url, wait: .seconds(10)))
        #expect(throws: refusal, "the first call reads the version and refuses") { try store.feeds() }
        #expect(throws: refusal, "and every call after it") { try store.hasFeed(named: "posts") }
        #expect(try PostgresStore.open(url: url, wait: .seconds(10), access: .readOnly) != nil, "read as it is")
        #expect(try admin.script("SELECT feedcli.schema_version()").row(0).text(0) == "99", "nothing migrated back")
    }

    /// A store that writes asks for its version when it is opened and reads the answer at its
    /// first call, so the round trip runs beside what the command does in between: the schema
    /// of a new database is made by that call, not by `open`.
    @Test func aStoreThatWritesReadsItsVersionAtItsFirstCall() async throws {
        let url = try await PostgresDatabases.fresh()
        let store = try #require(try PostgresStore.open(url: url, wait: .seconds(10)))
        let admin = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        #expect(try PostgresSchema.exists(admin) == false, "open only asked")
        _ = try store.feeds()
        #expect(try PostgresSchema.exists(admin), "the first call migrated")
        #expect(try PostgresSchema.enter(admin) == PostgresSchema.migrations.count)
    }

    @Test func aDatabaseWithoutTheSchemaHasNoVersion() async throws {
        let connection = try await PostgresConnection.connect(url: try PostgresDatabases.fresh(), timeout: .seconds(10))
        #expect(try PostgresSchema.enter(connection) == nil)
        #expect(
            try connection.script("SELECT 1").row(0).text(0) == "1", "the connection is usable after the refused read")
    }
}
