// swift-tools-version:6.1
import PackageDescription

// FeedCore is built as layered targets, one a folder of Sources/FeedCore, each naming only what
// it stands on, so that a dependency pointing the wrong way does not compile (docs/DESIGN.md, the
// layers). From the bottom:
//
//   FeedBase      platform imports, locks, a detached thread
//   FeedModel     values: entries, feeds and what a fetch changes; exact JSON
//   FeedReactive  cold observables, schedulers                      (on FeedBase)
//   FeedHTTP      libcurl as cold observables                       (on FeedReactive, FeedModel)
//   FeedJQ        jq expressions in a sandboxed worker              (on FeedModel)
//   FeedKinds     the feed kinds, paging, fetching                  (on FeedHTTP, FeedJQ)
//   FeedStoreContract  what a store is: protocols, rows, shared rules   (on FeedModel only)
//   FeedStore     the store in SQLite, on one machine               (on FeedStoreContract)
//   FeedPostgres  the store in PostgreSQL, for several machines     (on FeedStoreContract)
//   FeedReactor   actions, mutations, state; its output port       (on FeedKinds, FeedStoreContract: no HTTP, no engine)
//   FeedRendering text, JSON, Atom, OPML of model values            (on FeedModel only)
//   FeedTerminal  stdout/stderr sinks, the printer, pager, progress (on FeedReactor, FeedRendering, CProcessSpawn)
//   FeedCore      the commands: the composition root                (on all of the above)
//   FeedCLI       the executable: argument parsing, signals, exit status

let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

// SQLite is linked as the shared library (the default trait, `SharedSQLite`), or, with
// `--traits StaticSQLite` (scripts/build-release.sh), its archive is linked whole into the binary
// instead: loading libsqlite3.so and binding its symbols is a measurable share of a `next`. The
// archive is one object (SQLite's amalgamation), linked whole wherever the linker meets it.
let sqlite: [LinkerSetting] = [
    .linkedLibrary("sqlite3", .when(traits: ["SharedSQLite"])),
    .unsafeFlags(
        ["-Xlinker", "--whole-archive", "-Xlinker", "-l:libsqlite3.a", "-Xlinker", "--no-whole-archive"],
        .when(traits: ["StaticSQLite"])),
]

let package = Package(
    name: "feedcli",
    products: [
        .executable(name: "feedcli", targets: ["FeedCLI"]),
        .library(name: "FeedCore", targets: ["FeedCore"]),
    ],
    traits: [
        .trait(name: "SharedSQLite", description: "Link the system's libsqlite3.so (the default)."),
        .trait(
            name: "StaticSQLite",
            description: "Link libsqlite3.a into the binary, in place of SharedSQLite (the release build)."),
        .default(enabledTraits: ["SharedSQLite"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Loading a C library on first use (dlopen), for the shims below.
        .target(
            name: "CDynamicLibrary",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // jq's library, loaded on first use (jq.h from libjq-dev at build time, libjq1 at run
        // time only for feeds that use jq expressions).
        .target(name: "CJQ", dependencies: ["CDynamicLibrary"]),
        // The jq worker's confinement (seccomp, no privileges) and its shared progress.
        .target(name: "CWorkerSandbox"),
        // A spawned program's descriptors (a GNU extension Swift's view of glibc leaves out).
        .target(name: "CProcessSpawn"),
        // glibc's allocator settings (malloc.h), for the executable.
        .target(name: "CProcessMemory"),
        // PostgreSQL's client library, loaded on first use as jq's is (libpq-fe.h from libpq-dev
        // at build time, libpq5 at run time only for a store at a URL).
        .target(name: "CPostgres", dependencies: ["CDynamicLibrary"]),
        .target(name: "FeedBase", path: "Sources/FeedCore/Base"),
        .target(name: "FeedModel", dependencies: ["FeedBase"], path: "Sources/FeedCore/Model"),
        .target(name: "FeedReactive", dependencies: ["FeedBase"], path: "Sources/FeedCore/Reactive"),
        .target(
            name: "FeedHTTP",
            dependencies: ["CCurl", "FeedBase", "FeedReactive", "FeedModel"],
            path: "Sources/FeedCore/HTTP"
        ),
        .target(
            name: "FeedJQ", dependencies: ["CJQ", "CWorkerSandbox", "FeedBase", "FeedModel"],
            path: "Sources/FeedCore/JQ"),
        .target(
            name: "FeedKinds",
            dependencies: ["FeedBase", "FeedModel", "FeedReactive", "FeedHTTP", "FeedJQ", logging],
            path: "Sources/FeedCore/Feeds"
        ),
        // The store's contract stands alone, as NIOCore beside NIOPosix: the reactor and the
        // PostgreSQL engine link no SQLite, and each engine maps its own errors.
        .target(
            name: "FeedStoreContract",
            dependencies: ["FeedBase", "FeedModel"],
            path: "Sources/FeedCore/StoreContract"
        ),
        .target(
            name: "FeedStore",
            dependencies: ["CSQLite", "FeedBase", "FeedModel", "FeedStoreContract"],
            path: "Sources/FeedCore/Store",
            linkerSettings: sqlite
        ),
        .target(
            name: "FeedPostgres",
            dependencies: ["CPostgres", "FeedBase", "FeedModel", "FeedStoreContract"],
            path: "Sources/FeedCore/Postgres"
        ),
        .target(
            name: "FeedReactor",
            dependencies: ["FeedBase", "FeedModel", "FeedReactive", "FeedKinds", "FeedStoreContract", logging],
            path: "Sources/FeedCore/Reactor"
        ),
        .target(name: "FeedRendering", dependencies: ["FeedBase", "FeedModel"], path: "Sources/FeedCore/Rendering"),
        .target(
            name: "FeedTerminal",
            dependencies: ["CProcessSpawn", "FeedBase", "FeedModel", "FeedReactor", "FeedRendering"],
            path: "Sources/FeedCore/Terminal"
        ),
        .target(
            name: "FeedCore",
            dependencies: [
                "FeedBase", "FeedModel", "FeedReactive", "FeedHTTP", "FeedJQ", "FeedKinds", "FeedStore",
                "FeedStoreContract",
                "FeedPostgres", "FeedReactor", "FeedRendering", "FeedTerminal", logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/FeedCore/Commands"
        ),
        .executableTarget(
            name: "FeedCLI",
            dependencies: [
                "CProcessMemory", "FeedCore", "FeedModel", "FeedJQ", "FeedTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Tests by layer (docs/DEVELOPMENT.md, "Tests by layer"): a layer's tests build without the
        // layers above it. What several use lives once, in three libraries that stand as the
        // layers do: FeedTesting (signals, threads of their own, scratch folders, fixtures,
        // loopback servers, the test scheduler, the binary), FeedStoreTesting (PostgreSQL
        // databases, stores in scratch folders, a session on the binary), FeedReactorTesting
        // (the memory store, the stub fetcher, the reducer tester, paged and posts servers).
        .target(
            name: "FeedTesting",
            dependencies: ["FeedBase", "FeedModel", "FeedReactive"],
            path: "Tests/FeedTesting"
        ),
        .target(
            name: "FeedStoreTesting",
            dependencies: ["FeedTesting", "FeedBase", "FeedModel", "FeedStore", "FeedStoreContract", "FeedPostgres"],
            path: "Tests/FeedStoreTesting"
        ),
        .target(
            name: "FeedReactorTesting",
            dependencies: [
                "FeedTesting", "FeedStoreTesting", "FeedBase", "FeedModel", "FeedReactive", "FeedHTTP", "FeedKinds",
                "FeedStore", "FeedStoreContract", "FeedReactor",
                .product(name: "CustomDump", package: "swift-custom-dump"),
            ],
            path: "Tests/FeedReactorTesting"
        ),
        .testTarget(
            name: "FeedModelTests",
            dependencies: [
                "FeedTesting", "FeedBase", "FeedModel", .product(name: "CustomDump", package: "swift-custom-dump"),
            ]
        ),
        .testTarget(name: "FeedReactiveTests", dependencies: ["FeedTesting", "FeedBase", "FeedReactive"]),
        .testTarget(
            name: "FeedHTTPTests", dependencies: ["FeedTesting", "FeedBase", "FeedModel", "FeedReactive", "FeedHTTP"]),
        .testTarget(
            name: "FeedKindsTests",
            dependencies: ["FeedTesting", "FeedBase", "FeedModel", "FeedReactive", "FeedHTTP", "FeedJQ", "FeedKinds"]
        ),
        .testTarget(
            name: "FeedStoreTests",
            dependencies: [
                "FeedTesting", "FeedStoreTesting", "CSQLite", "FeedBase", "FeedModel", "FeedStore", "FeedStoreContract",
                "FeedPostgres",
            ]
        ),
        .testTarget(
            name: "FeedReactorTests",
            dependencies: [
                "FeedTesting", "FeedStoreTesting", "FeedReactorTesting", "FeedBase", "FeedModel", "FeedReactive",
                "FeedHTTP",
                "FeedKinds", "FeedStore", "FeedStoreContract", "FeedReactor", logging,
            ]
        ),
        .testTarget(
            name: "FeedCommandTests",
            dependencies: [
                "CSQLite", "FeedTesting", "FeedStoreTesting", "FeedReactorTesting", "FeedBase", "FeedModel", "FeedHTTP",
                "FeedKinds", "FeedStore", "FeedStoreContract",
                "FeedPostgres", "FeedReactor", "FeedRendering", "FeedTerminal", "FeedCore", "FeedCLI",
            ]
        ),
        .testTarget(
            name: "FeedEndToEndTests",
            dependencies: [
                "FeedTesting", "FeedStoreTesting", "FeedReactorTesting", "CSQLite", "FeedBase", "FeedModel", "FeedHTTP",
                "FeedJQ", "FeedKinds", "FeedStore", "FeedStoreContract", "FeedPostgres", "FeedReactor", "FeedRendering",
                "FeedTerminal", "FeedCore",
                // The end-to-end tests run the built `feedcli`.
                "FeedCLI",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
