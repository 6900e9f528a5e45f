// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "feedcli",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "feedcli", targets: ["FeedCLI"]),
        .library(name: "FeedCore", targets: ["FeedCore"]),
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
        // jq's library, loaded with dlopen on first use (jq.h from libjq-dev at build time,
        // libjq1 at run time only for feeds that use jq expressions).
        .target(
            name: "CJQ",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "FeedCore",
            dependencies: [
                "CCurl",
                "CJQ",
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: [
                // Release builds carry SQLite inside the binary: loading libsqlite3.so and binding
                // its ~1,600 symbols is a measurable share of a `next` (scripts/bench.sh).
                .linkedLibrary("sqlite3", .when(configuration: .debug)),
                .unsafeFlags(["-Xlinker", "-l:libsqlite3.a"], .when(configuration: .release)),
            ]
        ),
        .executableTarget(
            name: "FeedCLI",
            dependencies: [
                "FeedCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FeedCoreTests",
            dependencies: [
                "FeedCore",
                .product(name: "CustomDump", package: "swift-custom-dump"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
