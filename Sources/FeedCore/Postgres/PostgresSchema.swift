import FeedModel
import FeedStoreContract
import FoundationEssentials

/// The PostgreSQL store's schema `feedcli`, as versioned migrations, applied in order by the
/// first run that finds them missing (runs on several machines starting together take turns by
/// a transaction-scoped advisory lock). A migration, once released, never changes: add one.
///
/// The tables mirror the SQLite store's (see `StoreSchema`), so `store copy` moves every column:
/// names and times sort as bytes (`COLLATE "C"`, as SQLite sorts them, whatever the database's
/// locale); entry text is `bytea` (byte for byte, NUL included, as SQLite's blobs), times are the same
/// RFC 3339 text, and a trigger keeps a feed's unread count as entries are read.
package enum PostgresSchema {
    /// The schema every table lives in (`search_path` is set to it on connecting).
    package static let name = "feedcli"

    package static let migrations: [(name: String, sql: String)] = [
        (
            "v1: feeds, entries, numbers",
            """
            CREATE TABLE feed (
                name text COLLATE "C" PRIMARY KEY,
                url text NOT NULL,
                kind text NOT NULL,
                token_env text,
                next_index bigint NOT NULL DEFAULT 1,
                etag text,
                last_modified text,
                retry_not_before text,
                resume_url text,
                last_fetch_at text,
                last_success_at text,
                every_seconds bigint,
                last_error text,
                last_error_code bigint,
                entry_count bigint NOT NULL DEFAULT 0,
                unread_count bigint NOT NULL DEFAULT 0,
                expressions text,
                last_skipped bigint NOT NULL DEFAULT 0,
                last_filtered bigint NOT NULL DEFAULT 0,
                last_kept bigint NOT NULL DEFAULT 0,
                last_event_id text,
                last_event_at text,
                created_at text NOT NULL
            );
            CREATE TABLE entry (
                seq bigint PRIMARY KEY,
                feed text COLLATE "C" NOT NULL REFERENCES feed (name) ON DELETE CASCADE,
                id bytea NOT NULL,
                title bytea,
                text bytea,
                author bytea,
                url bytea,
                published text COLLATE "C",
                fetched_at text COLLATE "C" NOT NULL,
                read boolean NOT NULL DEFAULT false,
                source text NOT NULL,
                UNIQUE (feed, id)
            );
            CREATE INDEX entry_by_feed_read ON entry (feed, read, seq);
            CREATE INDEX entry_by_feed_seq ON entry (feed, seq);
            CREATE INDEX entry_by_read_publication ON entry (read, (COALESCE(published, fetched_at)), seq);
            CREATE INDEX entry_by_publication ON entry ((COALESCE(published, fetched_at)), seq);
            -- Entry numbers (the short handles), reserved before entries are printed: `next`
            -- counts up, `floor` counts down for backfilled entries (as in the SQLite store).
            CREATE TABLE entry_numbers (next bigint NOT NULL, floor bigint NOT NULL);
            INSERT INTO entry_numbers VALUES (1, 1);
            -- A feed's unread count follows its entries' read marks (SQLite: a trigger too).
            CREATE FUNCTION entry_read_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE feedcli.feed SET unread_count = unread_count + CASE WHEN NEW.read THEN -1 ELSE 1 END
                    WHERE name = NEW.feed;
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER entry_read_changed AFTER UPDATE OF read ON entry
                FOR EACH ROW WHEN (OLD.read IS DISTINCT FROM NEW.read) EXECUTE FUNCTION entry_read_changed();
            """
        ),
        // The version every run reads first, where a new backend finds it without loading a
        // catalog of its own (`enter`); `migrate` sets its answer after each run of migrations.
        (
            "v2: the schema's version as a function",
            """
            CREATE FUNCTION schema_version() RETURNS bigint IMMUTABLE LANGUAGE sql AS 'SELECT 0::bigint';
            """
        ),
        // Retention (`--keep`, `--remember`): NULL keep is a feed from before, which keeps all;
        // NULL remember is the kind's default. A pruned entry's id is remembered as a 64-bit key
        // (`RememberedID`) until `until` (seconds since 1970; NULL: for ever). Deleted rows are
        // left to autovacuum.
        (
            "v3: retention",
            """
            ALTER TABLE feed ADD COLUMN keep text;
            ALTER TABLE feed ADD COLUMN remember text;
            ALTER TABLE feed ADD COLUMN pruned bigint NOT NULL DEFAULT 0;
            ALTER TABLE feed ADD COLUMN pruned_unread bigint NOT NULL DEFAULT 0;
            CREATE TABLE remembered_id (key bigint PRIMARY KEY, until bigint);
            CREATE INDEX remembered_id_by_until ON remembered_id (until) WHERE until IS NOT NULL;
            """
        ),
        // The source feed's own title, which exports name the feed by (NULL: none found).
        (
            "v4: a feed's own title",
            """
            ALTER TABLE feed ADD COLUMN title text;
            """
        ),
        // A count of the changes to the feeds' settings (added, removed, changed: `feeds add`,
        // `remove`, `set`, `import`, from any machine), which a `follow` of every feed reads
        // every second or two to see the store change (`changeMark`) without reading the feeds.
        // A commit of entries or a fetch's bookkeeping does not move it.
        (
            "v5: a generation of the feeds' settings",
            """
            CREATE TABLE feed_generation (generation bigint NOT NULL);
            INSERT INTO feed_generation (generation) VALUES (0);
            CREATE FUNCTION feed_settings_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN UPDATE feedcli.feed_generation SET generation = generation + 1; RETURN NULL; END
            $$;
            CREATE TRIGGER feed_settings_changed
                AFTER INSERT OR DELETE OR UPDATE OF url, kind, token_env, expressions, every_seconds, keep, remember
                ON feed FOR EACH STATEMENT EXECUTE FUNCTION feed_settings_changed();
            """
        ),
        // Each entry's words for search (`PostgresSearch`), written with the entry; the column
        // of the entries stored before is filled by `buildSearchIndex` in the same transaction.
        (
            searchMigration,
            """
            ALTER TABLE entry ADD COLUMN search tsvector;
            CREATE INDEX entry_search ON entry USING gin (search);
            """
        ),
    ]

    /// The migration that adds search.
    static let searchMigration = "v6: search"

    /// Fills the `search` column of every entry stored before search, a thousand at a time.
    static func buildSearchIndex(_ connection: PostgresConnection) throws(FeedFailure) {
        var last = Int64.min
        while true {
            let rows = try connection.execute(
                """
                SELECT seq, feed, title, text, author, url FROM entry WHERE seq > $1::bigint AND search IS NULL
                ORDER BY seq LIMIT 1000
                """, [PostgresValue(last)]
            ).rows
            guard !rows.isEmpty else { return }
            for row in rows {
                let seq = Int64(try row.integer(0) ?? 0)
                let document = SearchDocument(
                    title: row.text(2), text: row.text(3), author: row.text(4), url: row.text(5),
                    feed: row.text(1) ?? "")
                try connection.execute(
                    "UPDATE entry SET search = $1::tsvector WHERE seq = $2::bigint",
                    [.text(PostgresSearch.vector(document)), PostgresValue(seq)])
                last = seq
            }
        }
    }

    /// Brings the database's schema to the current version; the built-in feed is registered by
    /// the first migration's run, as a new SQLite store has it.
    package static func migrate(_ connection: PostgresConnection) throws(FeedFailure) {
        try connection.script("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock($1, 0)", [.text(String(PostgresLocks.storeClass))])
            try connection.script(
                """
                CREATE SCHEMA IF NOT EXISTS \(name);
                CREATE TABLE IF NOT EXISTS \(name).migration (name text PRIMARY KEY, applied_at text NOT NULL)
                """)
            let applied = Set(try connection.execute("SELECT name FROM migration").rows.compactMap { $0.text(0) })
            for migration in migrations where !applied.contains(migration.name) {
                try connection.script(migration.sql)
                try connection.execute(
                    "INSERT INTO migration (name, applied_at) VALUES ($1, $2)",
                    [.text(migration.name), .text(Timestamp.format(.now))])
                if migration.name == searchMigration { try buildSearchIndex(connection) }
                if migration.name == migrations[0].name {
                    let posts = FeedRegistration.defaultFeed
                    try connection.execute(
                        "INSERT INTO feed (name, url, kind, created_at) VALUES ($1, $2, $3, $4)",
                        [
                            .text(posts.name), .text(posts.url), .text(posts.kind.rawValue),
                            .text(Timestamp.format(.now)),
                        ])
                }
            }
            // The version every run reads first (`enter`): how many migrations the schema has. The
            // comment is what feedcli before the function read, and still reads.
            let count = try connection.execute("SELECT COUNT(*)::bigint FROM migration").firstInteger() ?? 0
            try connection.script(
                """
                COMMENT ON SCHEMA \(name) IS 'feedcli schema, migrations: \(count)';
                CREATE OR REPLACE FUNCTION \(name).schema_version() RETURNS bigint IMMUTABLE LANGUAGE sql
                    AS 'SELECT \(count)::bigint'
                """)
            try connection.script("COMMIT")
        } catch {
            _ = try? connection.script("ROLLBACK")
            throw error
        }
    }

    /// Sets the connection's `search_path` to the schema and reads the schema's version (how many
    /// migrations it has), in one round trip: what every run does first. nil when the database
    /// has no feedcli schema.
    ///
    /// The version is the answer of the function `schema_version()`: a new backend looks a
    /// function up in a catalog it has loaded already, where reading the schema's comment (where
    /// the version was before migration v2, and still is) loads `pg_description` first, on every
    /// run's critical path. A schema without the function (older, or none at all) is
    /// read as before.
    package static func enter(_ connection: PostgresConnection) throws(FeedFailure) -> Int? {
        try sendEntry(connection)
        return try receiveEntry(connection)
    }

    /// `enter`'s statements sent, their answer left for `receiveEntry`: the server reads the
    /// version while the client goes on (a run's set-up between opening its store and its first
    /// statement).
    package static func sendEntry(_ connection: PostgresConnection) throws(FeedFailure) {
        try connection.sendScript(entry)
    }

    /// The version `sendEntry` asked for (`enter`'s answer).
    package static func receiveEntry(_ connection: PostgresConnection) throws(FeedFailure) -> Int? {
        let undefined: Set<String> = ["42883", "3F000"]  // undefined_function, invalid_schema_name
        if let version = try connection.receiveScript(entry, nilWhen: undefined),
            version.count == 1, let number = version.row(0).text(0).flatMap({ Int($0) })
        {
            return number
        }
        let comment = try connection.script(
            """
            SET search_path TO \(name); SELECT obj_description(to_regnamespace('\(name)'), 'pg_namespace')
            """)
        guard comment.count == 1, let text = comment.row(0).text(0) else {
            return try exists(connection) ? 0 : nil
        }
        return Int(text.split(separator: " ").last ?? "") ?? 0
    }

    /// What every run sends first: the search path and the version.
    private static let entry = "SET search_path TO \(name); SELECT \(name).schema_version()"

    /// Whether the database holds feedcli's schema at all.
    package static func exists(_ connection: PostgresConnection) throws(FeedFailure) -> Bool {
        let table = try connection.execute("SELECT to_regclass($1) IS NOT NULL", [.text("\(name).migration")])
        return table.count == 1 && table.row(0).bool(0)
    }
}
