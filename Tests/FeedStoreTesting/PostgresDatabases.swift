import FeedBase
import FeedModel
import FeedPostgres
import FeedStore
import FeedStoreContract
import FeedTesting
import Foundation
import Testing

/// Databases of a private PostgreSQL cluster: each test gets a new, empty database of its own, so
/// tests run in parallel without seeing each other's feeds.
///
/// The cluster is the one `FEEDCLI_TEST_POSTGRES` names (`scripts/test.sh` starts one), or else
/// one this process starts on first use with `scripts/postgres-cluster.sh` and stops when it
/// exits, so that `swift test` alone runs these tests too. Where no cluster can be started (no
/// PostgreSQL installed, no root or sudo), each PostgreSQL test is skipped with one line saying
/// why and how to run it; nothing fails for a missing variable.
public enum PostgresDatabases {
    /// The cluster's role URL, or why there is none; started once, on a thread of its own.
    private static let cluster = Task { await startCluster() }

    public struct Unavailable: Error, CustomStringConvertible {
        public var reason: String

        public init(reason: String) { self.reason = reason }

        public var description: String {
            "PostgreSQL tests skipped: \(reason). Install Debian's postgresql and run as root (or with sudo), "
                + "or give a cluster's URL in FEEDCLI_TEST_POSTGRES (scripts/postgres-cluster.sh start DIR prints one)"
        }
    }

    /// The URL of the test cluster's role; skips the calling test when there is none.
    public static func serverURL(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        switch await cluster.value {
        case .success(let url): return url
        case .failure(let unavailable):
            try Test.cancel(Comment(rawValue: unavailable.description), sourceLocation: sourceLocation)
        }
    }

    /// The URL of a new empty database on the test cluster.
    public static func fresh(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let serverURL = try await serverURL(sourceLocation: sourceLocation)
        guard let slash = serverURL.lastIndex(of: "/") else {
            throw Unavailable(reason: "\(serverURL) names no database")
        }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await onOwnThread {
            let admin = try PostgresConnection.connect(url: serverURL, timeout: .seconds(10))
            try admin.script("CREATE DATABASE \(name)")
        }
        return String(serverURL[..<slash]) + "/" + name
    }

    /// A store in a new database, as `feedcli` opens it, its schema made (by a first call: a
    /// store that writes reads its version then), so a test may look at its tables directly.
    public static func store(
        wait: Duration = .seconds(30), clock: FeedLock.WaitingClock = .live,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> PostgresStore {
        let url = try await fresh(sourceLocation: sourceLocation)
        // Connecting and the first call wait on the server: on a thread of their own.
        let store = try await onOwnThread { () throws(FeedFailure) -> PostgresStore? in
            let store = try PostgresStore.open(url: url, wait: wait, clock: clock)
            _ = try store?.feeds()
            return store
        }
        guard let store else { throw Unavailable(reason: "no store at \(url)") }
        return store
    }

    /// The variable's cluster, else a cluster of this process's own, stopped when it exits.
    private static func startCluster() async -> Result<String, Unavailable> {
        if let given = ProcessInfo.processInfo.environment["FEEDCLI_TEST_POSTGRES"], !given.isEmpty {
            return .success(given)
        }
        do {
            let cluster = try await PrivateCluster.start()
            ownCluster.withLock { $0 = cluster }
            atexit { PostgresDatabases.ownCluster.withLock { $0 }?.removeNow() }
            return .success(cluster.url)
        } catch {
            return .failure(error)
        }
    }

    private static let ownCluster = Locked<PrivateCluster?>(nil)
}
