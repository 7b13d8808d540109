// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    // Release builds skip the run-time exclusivity checks (docs/decisions/0031); debug builds,
    // which every test, the crash matrix and the fuzzers run, keep them.
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

// HEARTH_FUZZ=1: the fuzz targets' build (docs/fuzzing.md; below).
let fuzzing = Context.environment["HEARTH_FUZZ"] == "1"

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hearth", targets: ["HearthCLI"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "CLevelDB", providers: [.apt(["libleveldb-dev"])]),
        // zlib's inflate, for gzip objects served decompressed (Debian `zlib1g-dev`).
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // CRC-32C with the CPU's instruction (SSE 4.2, ARM's CRC extension), checked at run time.
        .target(name: "CCRC32C"),
        .target(
            name: "HearthCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "HearthRules",
            dependencies: ["HearthCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "HearthProtocol",
            dependencies: ["HearthCore"],
            swiftSettings: strict
        ),
        .target(
            name: "HearthStore",
            dependencies: [
                "CLevelDB", "HearthCore", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "HearthDatabase",
            dependencies: [
                "HearthCore", "HearthStore", "HearthProtocol", "HearthRules",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "HearthAccounts",
            dependencies: [
                "HearthCore", "HearthStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Firebase Storage's objects: bytes in files, metadata in a catalog of their own.
        .target(
            name: "HearthStorage",
            dependencies: [
                "HearthCore", "HearthStore", "CCRC32C", "CZlib", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Callables: the protocol a server-side function implements, its request, errors and
        // database access, and the registry of which namespaces serve which callables.
        .target(
            name: "HearthFunctions",
            dependencies: ["HearthCore", "HearthDatabase", "HearthRules", "HearthAccounts"],
            swiftSettings: strict
        ),
        // The chat app's backend: its callables (createChat, createGroup, ...), its message
        // trigger (`Triggers/`) and phone-number normalisation (`Phone/`).
        .target(
            name: "HearthChat",
            dependencies: [
                "HearthCore", "HearthDatabase", "HearthAccounts", "HearthFunctions", "HearthPush", "HearthNIO",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        // Push notifications' providers (FCM HTTP v1, the signed webhook), their outcomes and the
        // retry policy; the queue and its delivery worker call them.
        .target(
            name: "HearthPush",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // What several targets need of SwiftNIO beyond it: a task executor on an event loop.
        .target(
            name: "HearthNIO",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict
        ),
        // Hearth nodes over PostgreSQL (docs/cluster.md): the cluster's tables, namespace leases
        // fenced by epoch, the changelog. No Hearth target: the store and the server call it.
        .target(
            name: "HearthCluster",
            dependencies: [
                "HearthNIO",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The web console's files (`Sources/HearthConsole/Assets`: HTML, CSS, JavaScript), embedded
        // in the binary at build time by the EmbedConsole plugin (docs/console.md). Not in the fuzz
        // builds: their `-sanitize=fuzzer` reaches the plugin's tool too, which then cannot link
        // (libFuzzer's runtime asks for a fuzz callback); there the console has no files.
        .target(
            name: "HearthConsole",
            exclude: fuzzing ? ["Assets"] : [],
            swiftSettings: strict + (fuzzing ? [.define("HEARTH_CONSOLE_WITHOUT_FILES")] : []),
            plugins: fuzzing ? [] : ["EmbedConsole"]
        ),
        .plugin(name: "EmbedConsole", capability: .buildTool(), dependencies: ["ConsoleEmbedder"]),
        // The plugin's tool: the console's files → one Swift table of their texts by served path.
        .executableTarget(name: "ConsoleEmbedder", swiftSettings: strict),
        .target(
            name: "HearthServer",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                "HearthCore", "HearthProtocol", "HearthDatabase", "HearthRules", "HearthAccounts",
                "HearthFunctions", "HearthConsole", "HearthStorage", "HearthPush", "HearthCluster", "HearthStore",
                "HearthNIO",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "HearthCLI",
            dependencies: [
                "HearthCore", "HearthStore", "HearthDatabase", "HearthServer", "HearthRules", "HearthAccounts",
                "HearthFunctions", "HearthChat", "HearthStorage", "HearthPush", "HearthCluster",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore"]),
        .testTarget(
            name: "HearthClusterTests",
            dependencies: [
                "HearthCluster", "HearthNIO", "HearthTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "HearthStoreTests", dependencies: ["HearthStore", "HearthCore", "HearthTestSupport"]),
        .testTarget(name: "HearthProtocolTests", dependencies: ["HearthProtocol", "HearthCore"]),
        .testTarget(name: "HearthRulesTests", dependencies: ["HearthRules", "HearthCore"]),
        .testTarget(name: "HearthAccountsTests", dependencies: ["HearthAccounts", "HearthTestSupport"]),
        .testTarget(
            name: "HearthStorageTests",
            dependencies: [
                "HearthStorage", "HearthStore", "HearthCore", "HearthTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "HearthDatabaseTests",
            dependencies: [
                "HearthDatabase", "HearthStore", "HearthProtocol", "HearthCore", "HearthRules", "HearthTestSupport",
            ]
        ),
        // What the test targets share: the in-process `TestServer`, the realtime and SSE test
        // clients, raw sockets, `eventually`, `ManualClock`, temporary directories.
        .target(
            name: "HearthTestSupport",
            dependencies: [
                "HearthServer", "HearthCore", "HearthAccounts", "HearthCluster",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HearthTestSupport"
        ),
        // The end-to-end tests' write trigger and commit observer, and a server that runs them
        // for the tests that kill it (never part of the `hearth` product).
        .target(
            name: "HearthTriggerFixtures",
            dependencies: ["HearthDatabase", "HearthCore"],
            path: "Tests/HearthTriggerFixtures"
        ),
        .executableTarget(
            name: "hearth-trigger-server",
            dependencies: [
                "HearthTriggerFixtures", "HearthServer", "HearthDatabase", "HearthChat",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HearthTriggerServer"
        ),
        .testTarget(
            name: "HearthServerTests",
            dependencies: [
                "HearthServer", "HearthStore", "HearthCore", "HearthProtocol", "HearthAccounts", "HearthTestSupport",
                "HearthDatabase", "HearthRules", "HearthFunctions", "HearthCluster",
                "HearthTriggerFixtures",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // A fake FCM (OAuth2 token endpoint and messages:send, checking every field) and a webhook
        // receiver (checking the signature), on loopback ports, for any test target.
        .target(
            name: "HearthPushFakes",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/HearthPushFakes"
        ),
        .testTarget(
            name: "HearthPushTests",
            dependencies: [
                "HearthPush", "HearthPushFakes",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HearthChatTests",
            dependencies: [
                "HearthChat", "HearthFunctions", "HearthStore", "HearthDatabase", "HearthServer", "HearthCore",
                "HearthTestSupport", "HearthPush", "HearthPushFakes", "HearthAccounts", "HearthRules",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HearthCLITests",
            dependencies: [
                "HearthCLI", "HearthServer", "HearthStore", "HearthCore", "HearthAccounts", "HearthTestSupport",
                "HearthTriggerFixtures", "hearth-trigger-server", "HearthFunctions",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

// The benchmark (docs/benchmarks.md) stays out of the default build: HEARTH_BENCHMARKS=1 adds it.
if Context.environment["HEARTH_BENCHMARKS"] == "1" {
    package.products.append(.executable(name: "hearth-bench", targets: ["HearthBench"]))
    package.targets.append(
        .executableTarget(
            name: "HearthBench",
            dependencies: [
                "HearthRules", "HearthCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        )
    )
}

// The fuzz targets (docs/fuzzing.md) stay out of the default build: HEARTH_FUZZ=1 adds them. They are
// built only by scripts/fuzz/run.sh, into their own build path, with `-sanitize=fuzzer,address`.
if fuzzing {
    package.products.append(.executable(name: "hearth-fuzz", targets: ["HearthFuzz"]))
    // The targets that need the server's REST code: apart, since their build includes NIO and Hummingbird.
    package.products.append(.executable(name: "hearth-fuzz-rest", targets: ["HearthFuzzREST"]))
    package.targets.append(contentsOf: [
        // Declares libFuzzer's `LLVMFuzzerRunDriver` (the sanitizer runtime links it).
        .systemLibrary(name: "CLibFuzzer"),
        // `FuzzTarget`, `require` and the driver both fuzz binaries share.
        .target(name: "HearthFuzzSupport", dependencies: ["CLibFuzzer"], swiftSettings: strict),
        .executableTarget(
            name: "HearthFuzz",
            dependencies: [
                "HearthFuzzSupport", "HearthCore", "HearthProtocol", "HearthRules", "HearthAccounts", "HearthChat",
                "HearthStorage", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "HearthFuzzREST",
            dependencies: ["HearthFuzzSupport", "HearthServer"],
            swiftSettings: strict
        ),
    ])
}
