// swift-tools-version:6.0
import PackageDescription

// The benchmark programs and the minimal reproductions they compare against, apart from the shipped package (as
// Hummingbird keeps its benchmarks): an app that depends on `passkey` sees none of them. They use the root package by
// path, so they always measure the code beside them. docs/benchmarks.md says how to run each and keeps the figures.
//
//   cd Benchmarks && swift build -c release
//   swift build -c release --product passkey-server     # the server as deployed, beside the benchmarks
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "passkey-benchmarks",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "passkey-core-bench", targets: ["PasskeyCoreBenchmarks"]),
        .executable(name: "passkey-server-bench", targets: ["PasskeyServerBenchmarks"]),
        .executable(name: "passkey-operator-bench", targets: ["PasskeyOperatorBenchmarks"]),
        .executable(name: "passkey-http-floor", targets: ["PasskeyHTTPFloor"]),
        .executable(name: "passkey-sign-in-floor", targets: ["PasskeySignInFloor"]),
    ],
    dependencies: [
        .package(name: "passkey", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Verification alone, in process: the protocol core's cost per ceremony.
        .executableTarget(
            name: "PasskeyCoreBenchmarks",
            dependencies: [
                .product(name: "PasskeyCore", package: "passkey"),
                .product(name: "PasskeyAttestation", package: "passkey"),
                .product(name: "PasskeyCBOR", package: "passkey"),
                .product(name: "PasskeyWire", package: "passkey"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // What an operator pays: the release `passkey-server` as its own process, load from this one.
        .executableTarget(
            name: "PasskeyOperatorBenchmarks",
            dependencies: [
                .product(name: "PasskeyServer", package: "passkey"),
                .product(name: "PasskeyStorage", package: "passkey"),
                .product(name: "PasskeyCore", package: "passkey"),
                .product(name: "PasskeyWire", package: "passkey"),
                .product(name: "PasskeyTestSupport", package: "passkey"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The storage path's pieces and the routes in process (the record of the work behind the operator figures).
        .executableTarget(
            name: "PasskeyServerBenchmarks",
            dependencies: [
                .product(name: "PasskeyRelyingParty", package: "passkey"),
                .product(name: "PasskeyServer", package: "passkey"),
                .product(name: "PasskeyStorageSQLite", package: "passkey"),
                .product(name: "PasskeyStoragePostgres", package: "passkey"),
                .product(name: "PasskeyStorage", package: "passkey"),
                .product(name: "PasskeyCore", package: "passkey"),
                .product(name: "PasskeyWire", package: "passkey"),
                .product(name: "PasskeyTestSupport", package: "passkey"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The minimal reproduction beside passkey-operator-bench: Hummingbird alone, one constant route.
        .executableTarget(
            name: "PasskeyHTTPFloor",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: strict
        ),
        // The other minimal reproduction: a sign-in with the guarantees and nothing else, on Hummingbird, swift-crypto
        // and SQLite's C API. Nothing of this project's, on purpose.
        .executableTarget(
            name: "PasskeySignInFloor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
    ]
)
