import Foundation
import Testing

/// The layering of docs/architecture.md, checked on the sources' import lines so that it stays true: the protocol core
/// imports no I/O, the relying-party library no HTTP and no database driver, the server no driver (the executable
/// chooses them), the client SDK nothing of the verifier, storage or X.509.
@Suite("Modules import only what docs/architecture.md allows")
struct ModuleImportTests {
    /// Every module a module's sources may import (Swift's own and the platform's included).
    static let allowed: [String: Set<String>] = [
        "PasskeyCBOR": [],
        // The authenticator-data layout: bytes and CBOR only, so the SDK can share it with the verifier.
        "PasskeyAuthenticatorData": ["PasskeyCBOR"],
        "PasskeyWire": ["Foundation"],
        // The HTTP contract: the wire types and nothing else, so the SDK and the server can share it.
        "PasskeyAPI": ["PasskeyWire"],
        "PasskeyCore": ["Foundation", "Glibc", "Crypto", "_CryptoExtras", "PasskeyCBOR", "PasskeyAuthenticatorData", "PasskeyWire"],
        "PasskeyAttestation": ["Foundation", "Crypto", "_CryptoExtras", "X509", "SwiftASN1", "PasskeyCBOR", "PasskeyWire", "PasskeyCore"],
        "PasskeyStorage": ["Foundation", "PasskeyWire"],
        "PasskeyRelyingParty": [
            "Foundation", "Crypto", "_CryptoExtras", "JWTKit", "PasskeyCBOR", "PasskeyWire", "PasskeyAPI", "PasskeyCore", "PasskeyAttestation",
            "PasskeyStorage", "PasskeyAuthenticatorNames", "Synchronization",
        ],
        "PasskeyClient": ["Foundation", "FoundationNetworking", "Security", "PasskeyWire", "PasskeyAPI", "PasskeyCBOR", "PasskeyAuthenticatorData"],
        "PasskeySoftwareAuthenticator": [
            "Foundation", "Crypto", "Darwin", "Glibc", "Musl", "PasskeyCBOR", "PasskeyAuthenticatorData", "PasskeyClient", "PasskeyWire",
        ],
        "PasskeyAuthenticationServices": [
            "Foundation", "AuthenticationServices", "AuthenticationServicesStandIn", "CryptoKit", "LocalAuthentication", "UIKit", "AppKit",
            "PasskeyClient", "PasskeyWire",
        ],
    ]

    /// Modules a module's sources may not import: the database drivers are chosen in executables only; storage knows
    /// no relying-party code.
    static let forbidden: [String: Set<String>] = [
        "PasskeyStorage": ["PasskeyRelyingParty", "PasskeyCore", "PasskeyAPI", "PasskeyServer"],
        "PasskeyServer": ["PasskeyStorageSQLite", "PasskeyStoragePostgres", "GRDB", "GRDBSQLite", "PostgresNIO"],
        "PasskeyStorageSQLite": ["PasskeyServer", "PasskeyRelyingParty", "Hummingbird", "PasskeyStoragePostgres"],
        "PasskeyStoragePostgres": ["PasskeyServer", "PasskeyRelyingParty", "Hummingbird", "PasskeyStorageSQLite"],
    ]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    /// The modules each Swift file of `module` imports, by file.
    static func imports(of module: String) throws -> [(file: String, module: String)] {
        let folder = sources.appendingPathComponent(module)
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var found: [(String, String)] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ ["public", "package", "internal", "@testable", "@_exported", "@preconcurrency"].contains($0) })
                else { continue }
                // `import struct Foundation.Date` names the module after the kind.
                let target = words[index + 1].hasPrefix("struct") || words[index + 1].hasPrefix("class") ? words[index + 2] : words[index + 1]
                found.append((url.lastPathComponent, String(target.split(separator: ".").first ?? "")))
            }
        }
        return found
    }

    @Test("a layer imports only the layers below it", arguments: Array(allowed.keys).sorted())
    func allowList(module: String) throws {
        let imported = try Self.imports(of: module)
        #expect(FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent(module).path), "no sources found for \(module)")
        let extra = imported.filter { !(Self.allowed[module] ?? []).contains($0.module) }
        #expect(extra.isEmpty, "\(module) imports what it may not: \(extra.map { "\($0.file): \($0.module)" })")
    }

    /// The contract is shared, not copied: both sides of it import it.
    @Test("the verifier, the SDK, the software authenticator and the tests read and write one authenticator-data layout", arguments: ["PasskeyCore", "PasskeyClient", "PasskeySoftwareAuthenticator", "PasskeyTestSupport"])
    func oneAuthenticatorDataLayout(module: String) throws {
        #expect(try Self.imports(of: module).contains { $0.module == "PasskeyAuthenticatorData" })
    }

    @Test("the server, the SDK and the CLI all speak the API's types", arguments: ["PasskeyServer", "PasskeyClient", "PasskeyCLI"])
    func sharedContract(module: String) throws {
        #expect(try Self.imports(of: module).contains { $0.module == "PasskeyAPI" })
    }

    @Test("no database driver outside the executables and the drivers", arguments: Array(forbidden.keys).sorted())
    func denyList(module: String) throws {
        let imported = try Self.imports(of: module)
        #expect(!imported.isEmpty, "no sources found for \(module)")
        let bad = imported.filter { (Self.forbidden[module] ?? []).contains($0.module) }
        #expect(bad.isEmpty, "\(module) imports what it may not: \(bad.map { "\($0.file): \($0.module)" })")
    }
}
