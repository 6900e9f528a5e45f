import GRDB

/// The store's schema, as versioned migrations. A migration, once released, never changes: add a
/// new one instead.
enum StoreSchema {
    /// `PRAGMA application_id` of a feedcli store ("FEED"), so feedcli never writes to a SQLite
    /// file that is someone else's.
    static let applicationID: Int32 = 0x4645_4544

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: feeds and entries") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: """
                CREATE TABLE feed (
                    name TEXT PRIMARY KEY NOT NULL,
                    url TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    token_env TEXT,
                    next_index INTEGER NOT NULL DEFAULT 1,
                    etag TEXT,
                    last_modified TEXT,
                    retry_not_before TEXT,
                    last_fetch_at TEXT,
                    last_error TEXT,
                    last_error_code INTEGER,
                    created_at TEXT NOT NULL
                );
                CREATE TABLE entry (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    feed TEXT NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    title TEXT,
                    text TEXT,
                    author TEXT,
                    url TEXT,
                    published TEXT,
                    fetched_at TEXT NOT NULL,
                    read INTEGER NOT NULL DEFAULT 0,
                    source TEXT NOT NULL,
                    UNIQUE (feed, id)
                );
                CREATE INDEX entry_by_feed_read ON entry (feed, read, seq);
                """)
            let posts = FeedRegistration.defaultFeed
            try db.execute(
                sql: "INSERT INTO feed (name, url, kind, created_at) VALUES (?, ?, ?, ?)",
                arguments: [posts.name, posts.url, posts.kind.rawValue, Timestamp.format(.now)])
        }
        migrator.registerMigration("v2: backfill cursor") { db in
            // Where a walk cut short by --max-pages goes on next time (older entries).
            try db.execute(sql: "ALTER TABLE feed ADD COLUMN resume_url TEXT")
        }
        return migrator
    }
}
