@testable import FeedModel
@testable import FeedPostgres
@testable import FeedStore
import Foundation

/// Databases of the private PostgreSQL cluster that `scripts/test.sh` starts (its role's URL in
/// `FEEDCLI_TEST_POSTGRES`): each test gets a new, empty database of its own, so tests run in
/// parallel without seeing each other's feeds. A run without the cluster fails these tests with
/// what to do, rather than skipping them.
enum PostgresDatabases {
    static let serverURL = ProcessInfo.processInfo.environment["FEEDCLI_TEST_POSTGRES"]

    struct Unavailable: Error, CustomStringConvertible {
        var description: String {
            "FEEDCLI_TEST_POSTGRES is not set: run the tests with scripts/test.sh, which starts a private PostgreSQL cluster "
                + "(scripts/postgres-cluster.sh start DIR prints a URL to set it to)"
        }
    }

    /// The URL of a new empty database on the test cluster.
    static func fresh() throws -> String {
        guard let serverURL, let slash = serverURL.lastIndex(of: "/") else { throw Unavailable() }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection.connect(url: serverURL, timeout: .seconds(10))
        try admin.script("CREATE DATABASE \(name)")
        return String(serverURL[..<slash]) + "/" + name
    }

    /// A store in a new database, as `feedcli` opens it.
    static func store(wait: Duration = .seconds(30), clock: FeedLock.WaitingClock = .live) throws -> PostgresStore {
        guard let store = try PostgresStore.open(url: try fresh(), wait: wait, clock: clock) else { throw Unavailable() }
        return store
    }
}
