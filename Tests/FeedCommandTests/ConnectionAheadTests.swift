import ArgumentParser
import FeedPostgres
import FeedTerminal
import Testing

@testable import FeedCore

/// A command's context begins the connection to a database store as it is made
/// (`PostgresConnectionAhead`): for the plainest `next`, for every parsed command that opens its
/// state store, whether `--state` or `$FEEDCLI_STATE` names the database, and for nothing else
/// (a file, `store copy`, whose stores are its arguments). Nothing listens at the URL: a
/// connection begun there fails on its own thread, and nothing here opens the store.
@Suite("A database store's connection begun with the context")
struct ConnectionAheadTests {
    private let database = "postgresql://feedcli@127.0.0.1:1/feedcli"

    private func invocation(_ environment: [String: String] = [:], ahead: PostgresConnectionAhead? = nil) -> Invocation
    {
        Invocation(
            environment: environment, standardOutput: .standardOutput, standardError: .standardError,
            interruption: Interruption(), connectionAhead: ahead)
    }

    private func parsedContext(_ arguments: [String], _ environment: [String: String] = [:]) throws -> CommandContext {
        let command = try #require(try Feedcli.parseAsRoot(arguments) as? any FeedcliCommand)
        return invocation(environment).context(command.options)
    }

    @Test func theContextOfACommandThatOpensADatabaseBeginsItsConnection() throws {
        #expect(invocation().defaultContext(statePath: database, fetches: true).connectionAhead?.url == database)
        #expect(
            invocation(["FEEDCLI_STATE": database]).defaultContext(statePath: nil, fetches: false).connectionAhead?.url
                == database)
        #expect(try parsedContext(["sync", "--quiet", "--state", database]).connectionAhead?.url == database)
        #expect(try parsedContext(["list", "--jsonl"], ["FEEDCLI_STATE": database]).connectionAhead?.url == database)
    }

    /// The executable begins the plainest `next`'s connection before its invocation exists; the
    /// context takes that one rather than beginning a second, and only for the same URL.
    @Test func theConnectionTheExecutableBeganIsTheContexts() throws {
        #expect(Invocation.beginConnection(toStoreAt: nil) == nil)
        #expect(Invocation.beginConnection(toStoreAt: "/tmp/feeds.sqlite") == nil)
        let begun = try #require(Invocation.beginConnection(toStoreAt: database))
        #expect(begun.url == database)
        let context = invocation(ahead: begun).defaultContext(statePath: database, fetches: true)
        #expect(context.connectionAhead === begun, "the context takes the connection begun first")
        let elsewhere = "postgresql://feedcli@127.0.0.1:1/other"
        let other = invocation(ahead: begun).defaultContext(statePath: elsewhere, fetches: true)
        #expect(other.connectionAhead?.url == elsewhere && other.connectionAhead !== begun)
        let file = invocation(ahead: begun).defaultContext(statePath: "/tmp/feeds.sqlite", fetches: true)
        #expect(file.connectionAhead == nil)
    }

    @Test func noConnectionIsBegunForAFileOrForStoreCopy() throws {
        #expect(invocation().defaultContext(statePath: "/tmp/feeds.sqlite", fetches: true).connectionAhead == nil)
        #expect(try parsedContext(["sync", "--state", "/tmp/feeds.sqlite"]).connectionAhead == nil)
        #expect(
            try parsedContext(["store", "copy", "/tmp/a.sqlite", "/tmp/b.sqlite"], ["FEEDCLI_STATE": database])
                .connectionAhead == nil,
            "store copy opens its arguments, not the state store")
    }
}
