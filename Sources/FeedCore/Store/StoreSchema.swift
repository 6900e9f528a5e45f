import FeedModel
import FeedStoreContract
import FoundationEssentials
import Glibc

/// The store's schema, as versioned migrations. A migration, once released, never changes: add a
/// new one instead.
package enum StoreSchema {
    /// `PRAGMA application_id` of a feedcli store ("FEED"), so feedcli never writes to a SQLite
    /// file that is someone else's.
    package static let applicationID: Int32 = 0x4645_4544

    package static var migrator: SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.register("v1: feeds and entries") { db in
            try db.execute("PRAGMA application_id = \(applicationID)")
            try db.execute(
                """
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
            try db.statement("INSERT INTO feed (name, url, kind, created_at) VALUES (?, ?, ?, ?)")
                .run([.text(posts.name), .text(posts.url), .text(posts.kind.rawValue), .text(Timestamp.format(.now))])
        }
        migrator.register("v2: backfill cursor") { db in
            // Where a walk cut short by --max-pages goes on next time (older entries).
            try db.execute("ALTER TABLE feed ADD COLUMN resume_url TEXT")
        }
        migrator.register("v3: exact text, counters, per-feed order") { db in
            // Feed text is stored as UTF-8 blobs: SQLite's text binding (as GRDB did it) stops at
            // NUL, and a title or id may hold one. Columns keep TEXT affinity, which stores
            // blobs as they are; equality and UNIQUE compare the bytes.
            try db.execute(
                """
                UPDATE entry SET id = CAST(id AS BLOB), title = CAST(title AS BLOB), text = CAST(text AS BLOB),
                    author = CAST(author AS BLOB), url = CAST(url AS BLOB);
                ALTER TABLE feed ADD COLUMN entry_count INTEGER NOT NULL DEFAULT 0;
                -- `feeds add … --every`: a plain sync skips the feed while its last successful
                -- fetch is younger than this many seconds.
                ALTER TABLE feed ADD COLUMN every_seconds INTEGER;
                ALTER TABLE feed ADD COLUMN last_success_at TEXT;
                ALTER TABLE feed ADD COLUMN unread_count INTEGER NOT NULL DEFAULT 0;
                UPDATE feed SET
                    entry_count = (SELECT COUNT(*) FROM entry WHERE entry.feed = feed.name),
                    unread_count = (SELECT COUNT(*) FROM entry WHERE entry.feed = feed.name AND read = 0);
                CREATE TRIGGER entry_added AFTER INSERT ON entry BEGIN
                    UPDATE feed SET entry_count = entry_count + 1, unread_count = unread_count + (NEW.read = 0)
                    WHERE name = NEW.feed;
                END;
                CREATE TRIGGER entry_removed AFTER DELETE ON entry BEGIN
                    UPDATE feed SET entry_count = entry_count - 1, unread_count = unread_count - (OLD.read = 0)
                    WHERE name = OLD.feed;
                END;
                CREATE TRIGGER entry_read_changed AFTER UPDATE OF read ON entry WHEN OLD.read != NEW.read BEGIN
                    UPDATE feed SET unread_count = unread_count + (NEW.read = 0) - (OLD.read = 0) WHERE name = NEW.feed;
                END;
                CREATE INDEX entry_by_feed_seq ON entry (feed, seq);
                -- Entry numbers (the short handles) are reserved before entries are printed and
                -- stored after: `next` counts up, `floor` counts down for backfilled entries.
                CREATE TABLE entry_numbers (next INTEGER NOT NULL, floor INTEGER NOT NULL);
                INSERT INTO entry_numbers
                    SELECT COALESCE(MAX(seq), 0) + 1, MIN(COALESCE(MIN(seq), 1), 1) FROM entry;
                CREATE INDEX entry_by_read_seq ON entry (read, seq);
                """)
        }
        migrator.register("v4: jq expressions") { db in
            // A `json` feed's mapping and any feed's filter, as one JSON object
            // (`FeedExpressions`); NULL for feeds that have none.
            try db.execute("ALTER TABLE feed ADD COLUMN expressions TEXT")
        }
        migrator.register("v5: skipped items") { db in
            // How many items the last sync skipped (no usable id), for `status`.
            try db.execute("ALTER TABLE feed ADD COLUMN last_skipped INTEGER NOT NULL DEFAULT 0")
        }
        migrator.register("v6: reading across feeds by publication") { db in
            // `next --all` (and a bare `next` among several feeds) takes the oldest unread entry
            // by `published`, else `fetched_at`, ties in storage order: one index probe.
            try db.execute(
                "CREATE INDEX entry_by_read_publication ON entry (read, COALESCE(published, fetched_at), seq)")
        }
        migrator.register("v7: listing across feeds by publication") { db in
            // `list` of several feeds and `export` read every entry in that order (read or
            // not): walked along an index rather than sorted at each run.
            try db.execute("CREATE INDEX entry_by_publication ON entry (COALESCE(published, fetched_at), seq)")
        }
        migrator.register("v8: filtered items") { db in
            // What the last sync's --filter kept out and let through, for `status`.
            try db.execute("ALTER TABLE feed ADD COLUMN last_filtered INTEGER NOT NULL DEFAULT 0")
            try db.execute("ALTER TABLE feed ADD COLUMN last_kept INTEGER NOT NULL DEFAULT 0")
        }
        migrator.register("v9: stream positions") { db in
            // A stream feed's last SSE event id (sent back as Last-Event-ID) and the time of its
            // last event, for `follow`, `sync` and `status`.
            try db.execute("ALTER TABLE feed ADD COLUMN last_event_id TEXT")
            try db.execute("ALTER TABLE feed ADD COLUMN last_event_at TEXT")
        }
        migrator.register("v10: counts added by the batch") { db in
            // A feed's counts grow once per committed batch (`FeedStore.commitFetch`), not by a
            // trigger a row: the trigger's UPDATE was a third of what storing an entry cost (a
            // stream's 100,000 events; a long sync). Removing and reading entries keep theirs.
            try db.execute("DROP TRIGGER IF EXISTS entry_added")
        }
        migrator.register("v11: one index fewer to write") { db in
            // Unread entries across feeds in storage order (v3) are no longer asked for: lists of
            // several feeds go by publication (v7, `entry_by_read_publication`), which `read
            // --all` uses as well. An index fewer for every entry stored.
            try db.execute("DROP INDEX IF EXISTS entry_by_read_seq")
        }
        migrator.register("v12: retention") { db in
            // `--keep` and `--remember`: NULL keep is a feed from before retention, which keeps
            // all (an upgrade deletes nothing); NULL remember is the kind's default. `pruned`
            // counts what retention removed, `pruned_unread` the unread among it.
            try db.execute(
                """
                ALTER TABLE feed ADD COLUMN keep TEXT;
                ALTER TABLE feed ADD COLUMN remember TEXT;
                ALTER TABLE feed ADD COLUMN pruned INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE feed ADD COLUMN pruned_unread INTEGER NOT NULL DEFAULT 0;
                -- A pruned entry's id, as the 64-bit key `RememberedID` makes (the rowid itself:
                -- no other column but its expiry, seconds since 1970, NULL for ever).
                CREATE TABLE remembered_id (key INTEGER PRIMARY KEY, until INTEGER);
                CREATE INDEX remembered_id_by_until ON remembered_id (until) WHERE until IS NOT NULL;
                -- Counts follow removals in the statements that remove (pruning counts a step
                -- at once); a trigger a row was a third of what removing one cost.
                DROP TRIGGER IF EXISTS entry_removed;
                """)
        }
        migrator.register("v13: a feed's own title") { db in
            // The source feed's title (a JSON Feed's `title`, an OPML outline's), which exports
            // name the feed by; NULL when none was found (feeds from before, or of a kind given).
            try db.execute("ALTER TABLE feed ADD COLUMN title TEXT")
        }
        migrator.register("v14: remembered ids staged") { db in
            // A prune step's ids land here first (a small table, whose few pages every step
            // rewrites anyway) and move into `remembered_id` an eighth of the key space a step
            // (`FeedStore.mergeStaged`): written straight there, each id of a step was a page of
            // its own, random in a table of hundreds of thousands. An id is known in either.
            try db.execute(
                """
                CREATE TABLE remembered_staged (key INTEGER PRIMARY KEY, until INTEGER);
                CREATE INDEX remembered_staged_by_until ON remembered_staged (until) WHERE until IS NOT NULL;
                """)
        }
        migrator.register("v15: remembered ids' mark") { db in
            // A random value each write that remembers ids sets anew: a store open in memory
            // knows by it whether its filter of remembered keys is still whole
            // (`RememberedFilter`), or another run has remembered ids since. The staged ids lose
            // their expiry index: each staged id paid for it twice (in, then out with its range)
            // and it served only the search for ids 10 minutes late, which the small table's
            // scan answers as well.
            try db.execute(
                """
                CREATE TABLE remembered_mark (token INTEGER NOT NULL);
                INSERT INTO remembered_mark (token) VALUES (0);
                DROP INDEX IF EXISTS remembered_staged_by_until;
                """)
        }
        migrator.register("v16: four b-trees an entry") { db in
            // An entry was written into six b-trees; it is four now. The orders that
            // `entry_by_feed_seq` and `entry_by_publication` gave are the merge of the unread and
            // the read entries in the two indexes that begin with `read` (`StoredOrder`), so
            // `read` holds 0 or 1 only. And `seq` loses AUTOINCREMENT: every entry is stored
            // under a number reserved in `entry_numbers` (which never goes back), so the
            // `sqlite_sequence` row that SQLite read and wrote for every INSERT kept nothing.
            // Dropping the keyword changes no byte of the table, only the text SQLite keeps of
            // its definition (ALTER TABLE's documented procedure for changes of that kind:
            // `writable_schema`, the schema's version counted up so every connection reads it
            // again). 100,000 stream events: 1.76 s -> 1.33 s (median of eight, docs/PERFORMANCE.md).
            try db.execute(
                """
                UPDATE entry SET read = 1 WHERE read < 0 OR read > 1;  -- two probes of (read, …): no scan
                DROP INDEX IF EXISTS entry_by_feed_seq;
                DROP INDEX IF EXISTS entry_by_publication;
                """)
            try StoreSchema.dropAutoincrement(db)
        }
        migrator.register("v17: remembered ids in generations") { db in
            // Remembered ids are filed by the generation their time ends in, then by key
            // (`RememberedGeneration`): a prune step writes into the newest generation's few
            // pages and forgetting frees the oldest generation's pages whole, where v12-v16 put
            // each id in a random page of a large table (staged first, then moved) and forgot it
            // there. The ids of the old tables keep their time, rounded up to their generation.
            try db.execute(
                """
                CREATE TABLE remembered (expires INTEGER NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (expires, key))
                    WITHOUT ROWID;
                """)
            let now = Int64(Date.now.timeIntervalSince1970)
            // Read and filed one at a time (a store may remember millions), in key order.
            let file = try db.statement("INSERT OR IGNORE INTO remembered (expires, key) VALUES (?, ?)")
            try db.statement("SELECT key, until FROM remembered_id UNION ALL SELECT key, until FROM remembered_staged")
                .forEach { row in
                    let until = row.isNull(1) ? nil : row.int64(1)
                    try file.run([
                        .integer(RememberedGeneration.expiry(until: until, now: now)), .integer(row.int64(0)),
                    ])
                    return true
                }
            try db.execute(
                """
                DROP TABLE remembered_id;
                DROP TABLE remembered_staged;
                """)
        }
        migrator.register("v18: search") { db in
            // The index of every entry's words (`SearchIndex`), and which entries it holds:
            // none yet; `search` indexes what it holds not before it answers.
            try db.execute(SearchIndex.create)
            let holds = try db.statement("SELECT EXISTS (SELECT 1 FROM entry)").first { $0.bool(0) } ?? false
            try db.execute(
                "CREATE TABLE search_mark (lower INTEGER NOT NULL, upper INTEGER NOT NULL, built INTEGER NOT NULL)")
            try db.statement("INSERT INTO search_mark (lower, upper, built) VALUES (1, 1, ?)").run([SQLiteValue(!holds)]
            )
        }
        return migrator
    }

    /// Removes AUTOINCREMENT from `entry`'s definition, and its row of `sqlite_sequence`; in the
    /// migration's transaction. Nothing when the definition has none.
    static func dropAutoincrement(_ db: SQLiteConnection) throws {
        let keyword = "PRIMARY KEY AUTOINCREMENT"
        guard
            let definition = try db.statement("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entry'")
                .first([], { $0.string(0) }),
            definition.contains(keyword)
        else { return }
        let version = try db.statement("PRAGMA schema_version").first { $0.int64(0) } ?? 0
        try db.execute("PRAGMA writable_schema = ON")
        defer { _ = try? db.execute("PRAGMA writable_schema = OFF") }
        try db.statement("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'entry'")
            .run([.text(definition.replacing(keyword, with: "PRIMARY KEY"))])
        try db.execute("PRAGMA schema_version = \(version + 1)")
        try db.execute("PRAGMA writable_schema = OFF")
        try db.execute("DELETE FROM sqlite_sequence WHERE name = 'entry'")
    }
}
