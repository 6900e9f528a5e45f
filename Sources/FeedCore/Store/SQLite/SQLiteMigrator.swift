import FeedStoreContract
import FoundationEssentials

/// Versioned schema migrations, applied in order, each once, each in its own transaction.
///
/// Which ones are applied is kept in `grdb_migrations`, the table GRDB's migrator used when
/// feedcli was built on GRDB: stores made by those releases keep their history.
package struct SQLiteMigrator {
    package struct Migration {
        var identifier: String
        var apply: (SQLiteConnection) throws -> Void
    }

    package var migrations: [Migration] = []

    package mutating func register(_ identifier: String, _ apply: @escaping (SQLiteConnection) throws -> Void) {
        migrations.append(Migration(identifier: identifier, apply: apply))
    }

    /// How the store's schema stands to this migrator's, read in one query: whether every
    /// migration is applied, and how many applied ones this migrator does not know (a newer
    /// feedcli's). Reads only.
    package func standing(_ connection: SQLiteConnection) throws -> (isComplete: Bool, unknown: Int) {
        let applied = try appliedIdentifiers(connection)
        let known = Set(migrations.map(\.identifier))
        return (known.isSubset(of: applied), applied.subtracting(known).count)
    }

    /// Applies the missing migrations.
    package func migrate(_ connection: SQLiteConnection) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = try appliedIdentifiers(connection)
        for migration in migrations where !applied.contains(migration.identifier) {
            try connection.transaction(immediate: true) {
                try migration.apply(connection)
                try connection.statement("INSERT INTO grdb_migrations (identifier) VALUES (?)")
                    .run([.text(migration.identifier)])
            }
        }
    }

    private func appliedIdentifiers(_ connection: SQLiteConnection) throws -> Set<String> {
        let exists =
            try connection.statement(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'"
            ).first { _ in true } ?? false
        guard exists else { return [] }
        var applied = Set<String>()
        try connection.statement("SELECT identifier FROM grdb_migrations").forEach { row in
            applied.insert(row.string(0))
            return true
        }
        return applied
    }
}
