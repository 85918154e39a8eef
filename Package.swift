// swift-tools-version:6.0
import PackageDescription

// Layout (dependencies point downwards only; docs/architecture.md, checked by ModuleImportTests):
//   PasskeyCBOR, PasskeyWire        no dependencies: CBOR codec; base64url, JSON and the WebAuthn L3 JSON wire types
//   PasskeyAuthenticatorData        the authenticator-data layout (flags, offsets; writing, lenient reading) over
//                                   PasskeyCBOR: one for the verifier, the SDK, the software authenticator and the tests
//   PasskeyAPI                      the HTTP contract over PasskeyWire: error codes with their statuses, and the request
//                                   and answer types of every endpoint, shared by server, SDK and CLI
//   PasskeyCore                     the pure protocol: authenticator data, client data, COSE, ceremonies, `none`
//   PasskeyAttestation              trust-bearing attestation formats (X.509 via swift-certificates)
//   PasskeyDiagnostics              the fixture format and runner behind `passkey verify`
//   PasskeyAuthenticatorNames       authenticator model names by AAGUID
//   PasskeyStorage                  repository protocols, records, the in-memory store
//   PasskeyStorageSQLite, PasskeyStoragePostgres   the database drivers (GRDB, postgres-nio)
//   PasskeyRelyingParty             the relying-party library without HTTP: ceremonies, challenges, naming rules,
//                                   made-up credentials, signed tokens, over the storage protocols
//   PasskeyServer                   the Hummingbird server over the library (no driver)
//   passkey-server (PasskeyServerApp)  the executable: settings, subcommands, the only place a driver is chosen
//   passkey (PasskeyCLI)            command-line tool
//   PasskeyClient                   client SDK: the Authenticator seam, PasskeyError, ScriptedAuthenticator, the
//                                   PasskeyAuthClient flows and their HTTP transport (PasskeyWire, PasskeyAPI,
//                                   PasskeyCBOR, PasskeyAuthenticatorData and Foundation only)
//   PasskeySoftwareAuthenticator    an authenticator that really signs (PasskeyClient, PasskeyWire, PasskeyCBOR,
//                                   PasskeyAuthenticatorData, Crypto)
//   PasskeyAuthenticationServices   the Apple adapter: ASAuthorizationController behind the Authenticator protocol
//                                   (PasskeyClient, PasskeyWire, AuthenticationServices)
//   PasskeyTestSupport              test authenticators and keys for the test targets and Benchmarks/
//   EmbeddingExample                Examples/HummingbirdEmbedding: an app that embeds PasskeyRelyingParty
// The benchmark programs are a package of their own, Benchmarks/Package.swift, over this one by path.
// The client SDK depends on PasskeyWire/PasskeyAPI/PasskeyCBOR/PasskeyAuthenticatorData and swift-crypto only, never on PasskeyCore, attestation or X.509
// code: an app ships the client, not the verifier.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The Apple adapter and its Linux type-check. Every decision the adapter makes (request plan per OS version, error
// mapping, credential → JSON) is pure code in PasskeyClient, tested on Linux. What is left, the glue that calls
// AuthenticationServices, lives in PasskeyAuthenticationServices and compiles where PASSKEY_APPLE_ADAPTER is defined:
// - iOS, macOS, Mac Catalyst, visionOS: against the real AuthenticationServices. This is what apps link.
// - Linux: against AuthenticationServicesStandIn, declarations written from Apple's documentation whose bodies are
//   fatalError(), so CI catches a renamed member or a wrong signature in the glue. The stand-in is a Linux-only
//   (`.when(platforms: [.linux])`) dependency, so no Apple build links it, and on Linux the adapter is used only by
//   PasskeyAppleAdapterTests: its library product is declared only when the manifest is evaluated on an Apple host, so
//   no Linux product contains code that would fatalError().
// - tvOS, watchOS: the target is empty (no passkey providers there).
let appleAdapterProducts: [Product]
#if canImport(Darwin)
appleAdapterProducts = [.library(name: "PasskeyAuthenticationServices", targets: ["PasskeyAuthenticationServices"])]
#else
appleAdapterProducts = []
#endif

let package = Package(
    name: "passkey",
    platforms: [.macOS(.v14), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "PasskeyCBOR", targets: ["PasskeyCBOR"]),
        .library(name: "PasskeyAuthenticatorData", targets: ["PasskeyAuthenticatorData"]),
        .library(name: "PasskeyWire", targets: ["PasskeyWire"]),
        .library(name: "PasskeyAPI", targets: ["PasskeyAPI"]),
        .library(name: "PasskeyCore", targets: ["PasskeyCore"]),
        .library(name: "PasskeyAttestation", targets: ["PasskeyAttestation"]),
        .library(name: "PasskeyDiagnostics", targets: ["PasskeyDiagnostics"]),
        .library(name: "PasskeyStorage", targets: ["PasskeyStorage"]),
        .library(name: "PasskeyAuthenticatorNames", targets: ["PasskeyAuthenticatorNames"]),
        .library(name: "PasskeyStorageSQLite", targets: ["PasskeyStorageSQLite"]),
        .library(name: "PasskeyStoragePostgres", targets: ["PasskeyStoragePostgres"]),
        .library(name: "PasskeyRelyingParty", targets: ["PasskeyRelyingParty"]),
        .library(name: "PasskeyServer", targets: ["PasskeyServer"]),
        .executable(name: "passkey-server", targets: ["PasskeyServerApp"]),
        .library(name: "PasskeyClient", targets: ["PasskeyClient"]),
        .library(name: "PasskeySoftwareAuthenticator", targets: ["PasskeySoftwareAuthenticator"]),
        .executable(name: "passkey", targets: ["PasskeyCLI"]),
        // Test authenticators, free ports, temporary folders, a throw-away PostgreSQL and the launched server, as
        // HummingbirdTesting is to Hummingbird: for the benchmarks package and apps' own tests, never for production.
        .library(name: "PasskeyTestSupport", targets: ["PasskeyTestSupport"]),
    ] + appleAdapterProducts,
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        .target(name: "PasskeyCBOR", swiftSettings: strict),
        .target(name: "PasskeyAuthenticatorData", dependencies: ["PasskeyCBOR"], swiftSettings: strict),
        .target(name: "PasskeyWire", swiftSettings: strict),
        .target(name: "PasskeyAPI", dependencies: ["PasskeyWire"], swiftSettings: strict),
        .target(
            name: "PasskeyCore",
            dependencies: [
                "PasskeyCBOR", "PasskeyAuthenticatorData", "PasskeyWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PasskeyAttestation",
            dependencies: [
                "PasskeyCore", "PasskeyCBOR", "PasskeyWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        .target(name: "PasskeyVersion", swiftSettings: strict),
        .target(name: "PasskeyStorage", dependencies: ["PasskeyWire"], swiftSettings: strict),
        .target(
            name: "PasskeyAuthenticatorNames", dependencies: ["PasskeyWire"], exclude: ["Resources/README.md"],
            resources: [.copy("Resources/aaguids.json")], swiftSettings: strict),
        .target(
            name: "PasskeyStorageSQLite",
            dependencies: [
                "PasskeyStorage", "PasskeyWire", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PasskeyStoragePostgres",
            dependencies: [
                "PasskeyStorage", "PasskeyWire",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PasskeyRelyingParty",
            dependencies: [
                "PasskeyAPI", "PasskeyCore", "PasskeyAttestation", "PasskeyWire", "PasskeyCBOR", "PasskeyStorage", "PasskeyAuthenticatorNames",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PasskeyServer",
            dependencies: [
                "PasskeyRelyingParty", "PasskeyAPI",
                "PasskeyCore", "PasskeyAttestation", "PasskeyWire", "PasskeyCBOR", "PasskeyStorage", "PasskeyAuthenticatorNames",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Public")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "PasskeyServerApp",
            dependencies: [
                "PasskeyVersion",
                "PasskeyStorage", "PasskeyStorageSQLite", "PasskeyStoragePostgres",
                "PasskeyServer", "PasskeyRelyingParty", "PasskeyWire", "PasskeyAttestation", "PasskeyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PasskeyDiagnostics",
            dependencies: ["PasskeyCore", "PasskeyAttestation", "PasskeyWire", "PasskeyCBOR"],
            swiftSettings: strict
        ),
        .target(
            name: "PasskeyTestSupport",
            dependencies: [
                "PasskeyCore", "PasskeyCBOR", "PasskeyAuthenticatorData", "PasskeyWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PasskeyServerTestSupport",
            dependencies: [
                "PasskeyServer", "PasskeyRelyingParty", "PasskeyStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(name: "PasskeyClient", dependencies: ["PasskeyAPI", "PasskeyWire", "PasskeyCBOR", "PasskeyAuthenticatorData"], swiftSettings: strict),
        .target(
            name: "PasskeySoftwareAuthenticator",
            dependencies: [
                "PasskeyClient", "PasskeyWire", "PasskeyCBOR", "PasskeyAuthenticatorData",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(name: "AuthenticationServicesStandIn", exclude: ["README.md"], swiftSettings: strict),
        .target(
            name: "PasskeyAuthenticationServices",
            dependencies: [
                "PasskeyClient", "PasskeyWire",
                .target(name: "AuthenticationServicesStandIn", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict + [
                .define("PASSKEY_APPLE_ADAPTER", .when(platforms: [.iOS, .macOS, .macCatalyst, .visionOS, .linux]))
            ]
        ),
        .executableTarget(
            name: "PasskeyCLI",
            dependencies: [
                "PasskeyVersion",
                "PasskeyAuthenticatorNames",
                "PasskeyCore", "PasskeyAttestation", "PasskeyWire", "PasskeyCBOR", "PasskeyDiagnostics",
                "PasskeyClient", "PasskeySoftwareAuthenticator", "PasskeyAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        // Examples/HummingbirdEmbedding: an existing Hummingbird app that adds passkey sign-in through the relying-party
        // library (docs/embedding.md); built and tested with the package.
        .executableTarget(
            name: "EmbeddingExample",
            dependencies: [
                "PasskeyRelyingParty", "PasskeyAPI", "PasskeyCore", "PasskeyStorage", "PasskeyStorageSQLite", "PasskeyWire",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Examples/HummingbirdEmbedding/Sources/EmbeddingExample",
            swiftSettings: strict
        ),
        .testTarget(
            name: "EmbeddingExampleTests",
            dependencies: [
                "PasskeyAPI",
                "EmbeddingExample", "PasskeyClient", "PasskeySoftwareAuthenticator", "PasskeyStorage", "PasskeyWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Examples/HummingbirdEmbedding/Tests/EmbeddingExampleTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PasskeyServerTests",
            dependencies: [
                "PasskeyAPI",
                "PasskeyServer", "PasskeyServerApp", "PasskeyServerTestSupport", "PasskeyRelyingParty", "PasskeyStorage", "PasskeyStorageSQLite", "PasskeyStoragePostgres",
                "PasskeyCore", "PasskeyWire", "PasskeyCBOR",
                "PasskeyAttestation", "PasskeyTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["Golden"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PasskeyStorageTests",
            dependencies: [
                "PasskeyStorage", "PasskeyStorageSQLite", "PasskeyStoragePostgres", "PasskeyTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .testTarget(name: "PasskeyCBORTests", dependencies: ["PasskeyCBOR"], swiftSettings: strict),
        .testTarget(name: "PasskeyWireTests", dependencies: ["PasskeyWire"], swiftSettings: strict),
        .testTarget(
            name: "PasskeyCoreTests",
            dependencies: [
                "PasskeyCore", "PasskeyAttestation", "PasskeyCBOR", "PasskeyWire", "PasskeyDiagnostics", "PasskeyTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PasskeyClientTests",
            dependencies: [
                "PasskeyAPI",
                // The SDK under test, and the server-side verifier to check what it produces (tests only).
                "PasskeyClient", "PasskeySoftwareAuthenticator", "PasskeyWire", "PasskeyCBOR",
                "PasskeyCore", "PasskeyAttestation", "PasskeyTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PasskeyAppleAdapterTests",
            dependencies: [
                // The pure Apple code in the SDK, the adapter (type-checked against the stand-in on Linux), and the
                // verifier to check converted credentials (tests only).
                "PasskeyClient", "PasskeyAuthenticationServices", "PasskeyWire", "PasskeyCore", "PasskeyDiagnostics",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PasskeyClientFlowTests",
            dependencies: [
                "PasskeyAPI",
                // The client flows against the real server routes, in process (HummingbirdTesting) and over HTTP.
                "PasskeyClient", "PasskeySoftwareAuthenticator", "PasskeyWire", "PasskeyServer", "PasskeyServerTestSupport", "PasskeyStorage",
                "PasskeyRelyingParty", "PasskeyTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PasskeyCLITests",
            dependencies: [
                "PasskeyAPI",
                // The seed guides' clients (Tests/PasskeyCLITests/NuriGuideClientTests.swift) sign with the software
                // authenticator, against the same server process the CLI's tests run.
                "PasskeyCLI", "PasskeyWire", "PasskeyTestSupport", "PasskeyClient", "PasskeySoftwareAuthenticator",
                // `passkey doctor` against a misconfigured web server (redirects, HTML, wrong content type), in process.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        // Headless Chromium against a real `passkey-server` process. Depending on the executable target makes
        // `swift build --build-tests` build `passkey-server`, which the test runs from the build products folder.
        .testTarget(name: "PasskeyEndToEndTests", dependencies: ["PasskeyServerApp", "PasskeyWire", "PasskeyTestSupport"], swiftSettings: strict),
    ]
)
