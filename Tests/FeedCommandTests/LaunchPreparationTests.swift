import Foundation
import Testing
@testable import FeedModel
@testable import FeedPostgres
@testable import FeedStore
import FeedStoreContract
@testable import FeedReactor
@testable import FeedTerminal
@testable import FeedCore
@testable import FeedCLI
import FeedTesting
import FeedStoreTesting

/// The set-up a command gets on the other core while its arguments are parsed: which store it
/// guesses, that it opens only a store that needs no change, and that the command takes it
/// only when its options name the same store.
@Suite("launch preparation")
struct LaunchPreparationTests {
    let environment = ["FEEDCLI_STATE": "/state/default.sqlite"]

    @Test func theFetchingCommandsGuessTheStoreTheirCommandLineNames() {
        func guess(_ arguments: String...) -> LaunchPreparation.StoreGuess? {
            CommandLinePreparse(arguments, environment: environment).storeGuess
        }
        let wait = CommandContext.defaultWait
        #expect(guess("next") == .init(path: "/state/default.sqlite", wait: wait))
        #expect(guess("next", "b", "--state", "/x/s.sqlite") == .init(path: "/x/s.sqlite", wait: wait))
        #expect(guess("sync", "--state=/y/s.sqlite", "--quiet") == .init(path: "/y/s.sqlite", wait: wait))
        #expect(guess("next", "--", "--state", "/z") == .init(path: "/state/default.sqlite", wait: wait))
        // What the guess cannot match exactly, it leaves to the command.
        #expect(guess("next", "--wait", "5") == nil)
        #expect(guess("next", "--state", "/a", "--state", "/b") == nil)
        #expect(guess("next", "--state") == nil)
        #expect(guess("list") == nil)
        #expect(guess("feeds", "add", "x", "http://127.0.0.1/") == nil)
    }

    @Test func curlIsSetUpForEveryCommandThatFetches() {
        func prepares(_ arguments: String...) -> Bool {
            CommandLinePreparse(arguments, environment: environment).preparesCurl
        }
        #expect(prepares("next"))
        #expect(prepares("sync", "--jobs", "2"))
        #expect(prepares("feeds", "add", "x", "http://127.0.0.1/"))
        #expect(!prepares("list"))
        #expect(!prepares("feeds", "list"))
        #expect(!prepares("--help"))
    }

    @Test func onlyAStoreThatNeedsNoChangeIsOpenedAhead() throws {
        let missing = temporaryStorePath()
        #expect(FeedStore.openIfReady(at: missing, wait: .zero) == nil)
        #expect(!FileManager.default.fileExists(atPath: (missing as NSString).deletingLastPathComponent))

        let ready = temporaryStorePath()
        _ = try FeedStore.open(at: ready).feeds()
        let store = try #require(FeedStore.openIfReady(at: ready, wait: .zero))
        #expect(try store.feeds().map(\.name) == ["posts"])

        let foreign = temporaryStorePath()
        try FileManager.default.createDirectory(
            atPath: (foreign as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: foreign))
        #expect(FeedStore.openIfReady(at: foreign, wait: .zero) == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == Data("not a store".utf8))
    }

    @Test func theCommandTakesTheStoreOpenedAheadOnceAndOnlyWhenItIsTheSame() async throws {
        let path = temporaryStorePath()
        _ = try FeedStore.open(at: path).feeds()
        let launch = LaunchPreparation.start(storeGuess: .init(path: path, wait: CommandContext.defaultWait), preparesCurl: false)
        #expect(try launch.takeStore(path: path + "-other", wait: CommandContext.defaultWait) == nil)
        #expect(try launch.takeStore(path: path, wait: .seconds(5)) == nil)
        #expect(try launch.takeStore(path: path, wait: CommandContext.defaultWait) != nil)
        #expect(try launch.takeStore(path: path, wait: CommandContext.defaultWait) == nil)
        launch.finish()
    }

    @Test func aReadWriteOpenOfTheContextTakesItAndAReadOnlyOneDoesNot() throws {
        let path = temporaryStorePath()
        _ = try FeedStore.open(at: path).feeds()
        func context(_ launch: LaunchPreparation) -> CommandContext {
            CommandContext(statePath: path, stdout: BufferSink(), stderr: BufferSink(), launch: launch)
        }
        let reader = LaunchPreparation.start(storeGuess: .init(path: path, wait: CommandContext.defaultWait), preparesCurl: false)
        _ = try context(reader).openStore(access: .readOnly)
        #expect(try reader.takeStore(path: path, wait: CommandContext.defaultWait) != nil)

        let writer = LaunchPreparation.start(storeGuess: .init(path: path, wait: CommandContext.defaultWait), preparesCurl: false)
        _ = try context(writer).openStore()
        #expect(try writer.takeStore(path: path, wait: CommandContext.defaultWait) == nil, "openStore() took it")
    }

    @Test func aDatabaseIsConnectedToAheadOnlyWhenItsSchemaIsCurrentAndAFailureIsKeptForTheCommand() async throws {
        let url = try await PostgresDatabases.fresh()
        let wait = CommandContext.defaultWait
        let unmigrated = LaunchPreparation.start(storeGuess: .init(path: url, wait: wait), preparesCurl: false)
        #expect(try unmigrated.takeStore(path: url, wait: wait) == nil, "a migration is the command's own open's")
        #expect(try PostgresStore.open(url: url) != nil)
        let ready = LaunchPreparation.start(storeGuess: .init(path: url, wait: wait), preparesCurl: false)
        #expect(try ready.takeStore(path: url, wait: wait) is PostgresStore)
        let down = "postgresql://feedcli@127.0.0.1:\(try LoopbackServer.closedPort())/feedcli"
        let unreachable = LaunchPreparation.start(storeGuess: .init(path: down, wait: wait), preparesCurl: false)
        #expect { try unreachable.takeStore(path: down, wait: wait) } throws: { ($0 as? FeedFailure)?.exitCode == 74 }
    }
}
