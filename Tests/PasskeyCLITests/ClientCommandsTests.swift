import Foundation
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `passkey-server` process (in-memory database by default) on a free local port
/// (``PasskeyTestSupport/LaunchedServer``); `waitUntilHealthy()` before use, `stop()` always.
typealias ServerProcess = LaunchedServer

extension LaunchedServer {
    init(arguments extra: [String] = [], database: String = "memory:") throws {
        self = try LaunchedServer.launch(port: try LocalPorts.free(), arguments: ["--database", database] + extra)
    }

    /// The status `url` answers a GET with, as a browser's request gets it (URLSession); nil without an answer.
    static func status(of url: URL) async -> Int? {
        await withCheckedContinuation { continuation in
            var request = URLRequest(url: url)
            request.timeoutInterval = 2
            URLSession.shared.dataTask(with: request) { _, response, _ in
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode)
            }.resume()
        }
    }
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh private (0700) temporary directory.
func privateDirectory() throws -> String {
    let directory = temporaryPath("passkey-cli")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return directory.path
}

/// A private (0600) file in a fresh temporary directory.
func privateFile(_ name: String, contents: [UInt8]? = nil) throws -> String {
    let path = URL(fileURLWithPath: try privateDirectory()).appendingPathComponent(name).path
    if let contents {
        guard FileManager.default.createFile(atPath: path, contents: Data(contents), attributes: [.posixPermissions: 0o600]) else {
            throw CLITestError("cannot write \(path)")
        }
    }
    return path
}

@Suite("passkey register / login / credentials against a real passkey-server", .serialized)
struct ClientCommandsTests {
    @Test("bench runs full ceremonies and reports rates and percentiles; throttling shows as rate_limited")
    func bench() async throws {
        let server = try ServerProcess(arguments: ["--options-per-minute", "1000000"])
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let run = try CLIRun.run(["bench", "--server", server.url, "--concurrency", "3", "--duration", "1", "--ceremony", "both", "--json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let report = try JSONValue.parse(run.stdout).objectValue
        #expect(report?["ok"] == true)
        let succeeded = report?["succeeded"]?.intValue ?? 0
        #expect(succeeded > 3)
        #expect(report?["failed"] == 0)
        for ceremony in ["register", "login", "all"] {
            let line = report?[ceremony]?.objectValue
            #expect((line?["count"]?.intValue ?? 0) > 0, "\(ceremony)")
            let p50 = line?["p50Ms"]?.numberValue ?? 0
            let p99 = line?["p99Ms"]?.numberValue ?? 0
            #expect(p50 > 0 && p99 >= p50, "\(ceremony)")
        }
        #expect(report?["all"]?.objectValue?["count"]?.intValue == succeeded)

        // A throttled server (one options request a minute per client: the second of the two workers' first requests is
        // already refused, however slow the machine) refuses most of a load test, and bench reports it by code.
        let throttled = try ServerProcess(arguments: ["--options-per-minute", "1"])
        defer { throttled.stop() }
        try await throttled.waitUntilHealthy()
        let limited = try CLIRun.run(["bench", "--server", throttled.url, "--concurrency", "2", "--duration", "1", "--ceremony", "register", "--json"])
        #expect(limited.status == 1)
        #expect((try JSONValue.parse(limited.stdout).objectValue?["failures"]?.objectValue?["rate_limited"]?.intValue ?? 0) > 0)
    }

    @Test("register --anonymous makes an account without a username that signs in without one; the flag is never implied")
    func anonymous() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let store = try privateFile("credentials.json")
        let registered = try CLIRun.run(["register", "--server", server.url, "--anonymous", "--store", store, "--json"])
        #expect(registered.status == 0, "\(registered.stdout)\(registered.stderr)")
        let registration = try JSONValue.parse(registered.stdout).objectValue
        #expect(registration?["isAnonymous"] == true && registration?["username"]?.stringValue?.hasPrefix("anonymous-") == true)
        let login = try CLIRun.run(["login", "--server", server.url, "--store", store, "--json"])
        #expect(login.status == 0, "\(login.stdout)\(login.stderr)")
        let signedIn = try JSONValue.parse(login.stdout).objectValue
        #expect(signedIn?["isAnonymous"] == true && signedIn?["userId"] == registration?["userId"])

        let neither = try CLIRun.run(["register", "--server", server.url, "--store", store])
        #expect(neither.status == 2 && neither.stderr.contains("--anonymous"), "\(neither.stderr)")
        let both = try CLIRun.run(["register", "--server", server.url, "--username", "ann", "--anonymous", "--store", store])
        #expect(both.status == 2, "\(both.stderr)")
    }

    @Test("register --account-creation names the account by --contact, as iOS 26's sign-up sheet does; a taken contact exits 1")
    func accountCreation() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let store = try privateFile("credentials.json")
        let registered = try CLIRun.run([
            "register", "--server", server.url, "--account-creation", "--contact", "ann@example.com", "--name", "Ann Lee", "--store", store,
            "--json",
        ])
        #expect(registered.status == 0, "\(registered.stdout)\(registered.stderr)")
        let registration = try JSONValue.parse(registered.stdout).objectValue
        #expect(registration?["username"] == "ann@example.com" && registration?["isAnonymous"] == false)
        let login = try CLIRun.run(["login", "--server", server.url, "--username", "ann@example.com", "--store", store, "--json"])
        #expect(login.status == 0, "\(login.stdout)\(login.stderr)")
        #expect(try JSONValue.parse(login.stdout).objectValue?["userId"] == registration?["userId"])

        let other = try privateFile("other.json")
        let taken = try CLIRun.run(["register", "--server", server.url, "--account-creation", "--contact", "ANN@example.com", "--store", other])
        #expect(taken.status == 1 && taken.stderr.contains("already registered"), "\(taken.stderr)")
        let phone = try CLIRun.run(["register", "--server", server.url, "--account-creation", "--contact", "+44 20 7946 0000", "--store", other])
        #expect(phone.status == 0 && phone.stdout.contains("+442079460000"), "\(phone.stdout)\(phone.stderr)")
        let badPhone = try CLIRun.run(["register", "--server", server.url, "--account-creation", "--contact", "020 7946 0000", "--store", other])
        #expect(badPhone.status == 1 && badPhone.stderr.contains("contact_invalid"), "\(badPhone.stderr)")

        let noContact = try CLIRun.run(["register", "--server", server.url, "--account-creation", "--store", store])
        #expect(noContact.status == 2 && noContact.stderr.contains("--contact"), "\(noContact.stderr)")
        let withUsername = try CLIRun.run([
            "register", "--server", server.url, "--account-creation", "--contact", "bo@example.com", "--username", "bo", "--store", store,
        ])
        #expect(withUsername.status == 2, "\(withUsername.stderr)")
        let contactAlone = try CLIRun.run(["register", "--server", server.url, "--username", "bo", "--contact", "bo@example.com", "--store", store])
        #expect(contactAlone.status == 2 && contactAlone.stderr.contains("--account-creation"), "\(contactAlone.stderr)")
    }

    @Test(
        "a passkey another server on the same RP ID made: credential_unknown here; kept in the file when this server says another may hold it, forgotten when it says none does"
    )
    func unknownToThisServer() async throws {
        let store = try privateFile("credentials.json")
        let first = try ServerProcess()
        try await first.waitUntilHealthy()
        let registered = try CLIRun.run(["register", "--server", first.url, "--username", "ann", "--store", store])
        first.stop()
        #expect(registered.status == 0, "\(registered.stderr)")
        // A fresh in-memory database that never saw the passkey, on a server told that another shares its RP ID.
        let shared = try ServerProcess(arguments: ["--no-unknown-credential-signal"])
        try await shared.waitUntilHealthy()
        let login = try CLIRun.run(["login", "--server", shared.url, "--store", store])
        shared.stop()
        #expect(login.status == 1)
        #expect(login.stderr.contains("sign in with --username to use a passkey of that account"), "\(login.stderr)")
        var listed = try CLIRun.run(["credentials", "--store", store, "--json"])
        #expect(try JSONValue.parse(listed.stdout).objectValue?["credentials"]?.arrayValue?.count == 1, "kept: it may be the other server's")

        // By default a server holds that no account anywhere under its RP ID has a passkey it does not know.
        let alone = try ServerProcess()
        defer { alone.stop() }
        try await alone.waitUntilHealthy()
        let refused = try CLIRun.run(["login", "--server", alone.url, "--store", store])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("so it was removed from the credential file"), "\(refused.stderr)")
        listed = try CLIRun.run(["credentials", "--store", store, "--json"])
        #expect(try JSONValue.parse(listed.stdout).objectValue?["credentials"]?.arrayValue?.count == 0, "forgotten, as the server asked")
    }

    @Test("register, log in with and without a username, refuse a second registration and a tampered store")
    func endToEnd() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let store = try privateFile("credentials.json")

        let registered = try CLIRun.run(["register", "--server", server.url, "--username", "ann", "--display-name", "Ann Lee", "--store", store, "--json"])
        #expect(registered.status == 0, "\(registered.stdout)\(registered.stderr)")
        let registration = try JSONValue.parse(registered.stdout).objectValue
        #expect(registration?["verified"] == true && registration?["username"] == "ann" && registration?["isAnonymous"] == false)
        let credentialId = try #require(registration?["credentialId"]?.stringValue)
        let mode = try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let named = try CLIRun.run(["login", "--server", server.url, "--username", "ann", "--store", store, "--json"])
        #expect(named.status == 0, "\(named.stdout)\(named.stderr)")
        let namedJSON = try JSONValue.parse(named.stdout).objectValue
        #expect(namedJSON?["username"] == "ann" && namedJSON?["credentialId"] == .string(credentialId) && namedJSON?["signCount"] == 1)
        #expect(namedJSON?["rpId"] == "localhost" && namedJSON?["user"]?.objectValue?["name"] == "ann", "the server's rpId and user, passed on")

        let usernameless = try CLIRun.run(["login", "--server", server.url, "--store", store])
        #expect(usernameless.status == 0, "\(usernameless.stderr)")
        #expect(usernameless.stdout.contains("signed in as ann"))
        #expect(usernameless.stdout.contains("sign count:    2"))

        let listed = try CLIRun.run(["credentials", "--store", store, "--json"])
        #expect(listed.status == 0)
        #expect(try JSONValue.parse(listed.stdout).objectValue?["ok"] == true)
        let credentials = try JSONValue.parse(listed.stdout).objectValue?["credentials"]?.arrayValue ?? []
        #expect(credentials.count == 1)
        #expect(credentials.first?.objectValue?["rpId"] == "localhost" && credentials.first?.objectValue?["signCount"] == 2)
        #expect(!listed.stdout.contains("privateKey") && !listed.stdout.contains("prfSecret"))
        #expect(credentials.first?.objectValue?["prf"] == false, "the server's options do not ask for prf")
        #expect(credentials.first?.objectValue?["largeBlob"] == .object(["supported": false, "bytes": .null]), "nor for largeBlob")
        #expect(try CLIRun.run(["credentials", "--store", store]).stdout.contains("ann (Ann Lee) @ localhost"))

        // The same user again from the same store: the server answers 409 username_taken.
        let again = try CLIRun.run(["register", "--server", server.url, "--username", "ann", "--store", store])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already registered"), "\(again.stderr)")
        #expect(again.stderr.contains("username_taken"))
        let againJSON = try CLIRun.run(["register", "--server", server.url, "--username", "ann", "--store", store, "--json"])
        #expect(againJSON.status == 1)
        #expect(try JSONValue.parse(againJSON.stdout).objectValue?["serverError"] == "username_taken")

        // A store whose key for ann was swapped for another passkey's key: the server rejects the signature.
        let other = try privateFile("other.json")
        #expect(try CLIRun.run(["register", "--server", server.url, "--username", "bo", "--store", other]).status == 0)
        let tampered = try privateFile("tampered.json", contents: try swapPrivateKey(of: store, with: other))
        let forged = try CLIRun.run(["login", "--server", server.url, "--username", "ann", "--store", tampered])
        #expect(forged.status == 1, "\(forged.stdout)\(forged.stderr)")
        #expect(forged.stderr.contains("signature"), "\(forged.stderr)")

        // A damaged store is refused before anything is sent.
        let damaged = try privateFile("damaged.json", contents: Array(#"{"format": "passkey-software-credentials", "version": 1, "credentials": [{"id": 1}]}"#.utf8))
        let unreadable = try CLIRun.run(["login", "--server", server.url, "--store", damaged])
        #expect(unreadable.status == 2)
        #expect(unreadable.stderr.contains("damaged"), "\(unreadable.stderr)")

        // No passkey for the server in an empty store: refused.
        let empty = try CLIRun.run(["login", "--server", server.url, "--store", try privateFile("empty.json")])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("no_credentials"))

        // https:// to this plain-HTTP server: the TLS failure in words, with the port, rather than "network error -1".
        let tls = try CLIRun.run(["login", "--server", server.url.replacingOccurrences(of: "http://", with: "https://"), "--store", store])
        #expect(tls.status == 3)
        #expect(tls.stderr.contains("cannot reach localhost:\(server.port)"), "\(tls.stderr)")
        #if !canImport(Darwin)
        #expect(tls.stderr.contains("wrong version number") && tls.stderr.contains("a server that speaks plain HTTP?"), "\(tls.stderr)")
        #endif
    }

    @Test("network failures exit 3, usage errors 2")
    func networkAndUsage() throws {
        let store = try privateFile("credentials.json")
        let run = try CLIRun.run(["login", "--server", "http://127.0.0.1:9", "--store", store, "--json"])
        #expect(run.status == 3)
        #expect(try JSONValue.parse(run.stdout).objectValue?["error"] == "network")
        #expect(try JSONValue.parse(run.stdout).objectValue?["message"] == "cannot reach 127.0.0.1:9: connection refused", "\(run.stdout)")
        #expect(try CLIRun.run(["register", "--server", "not a url", "--username", "x", "--store", store]).status == 2)
        #expect(try CLIRun.run(["register", "--server", "http://localhost:1"]).status == 2)
        for server in ["http://localhost:1?x=1", "http://localhost:1/#top", "http://ann:secret@localhost:1"] {
            let refused = try CLIRun.run(["login", "--server", server, "--store", store])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("without a query, fragment or user name"), "\(refused.stderr)")
        }
        #expect(try CLIRun.run(["login", "--server", "http://localhost:1", "--origin", "ftp://x", "--store", store]).status == 2)
    }

    @Test("inspect decodes a registration: client data, flags, AAGUID and its name, COSE key, attestation certificates")
    func inspect() throws {
        let fixture = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: CLIRun.fixture("registration/yubico-tpm-windows-hello.json")))))
        let credential = try #require(fixture.objectValue?["credential"])
        let file = try privateFile("response.json", contents: credential.serializedBytes)
        let run = try CLIRun.run(["inspect", file, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONValue.parse(run.stdout).objectValue
        #expect(report?["ok"] == true)
        #expect(report?["ceremony"] == "registration")
        #expect(report?["clientData"]?.objectValue?["type"] == "webauthn.create")
        let authData = report?["authenticatorData"]?.objectValue
        #expect(authData?["aaguid"] == "08987058-cadc-4b81-b6e1-30de50dcbe96")
        #expect(authData?["authenticator"] == "Windows Hello")  // named from the bundled AAGUID list
        #expect(authData?["flags"]?.objectValue?["AT"] == true)
        #expect(authData?["credentialPublicKey"]?.objectValue?["kty"] != nil)
        let attestation = report?["attestation"]?.objectValue
        #expect(attestation?["fmt"] == "tpm")
        #expect((attestation?["certificates"]?.arrayValue?.count ?? 0) >= 1)

        let human = try CLIRun.run(["inspect", CLIRun.fixture("authentication/simplewebauthn-es256-security-key.json")])
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.contains("ceremony: authentication"))
        #expect(human.stdout.contains("UP: true"))
        #expect(try CLIRun.run(["inspect", "/nonexistent.json"]).status == 2)
    }

    /// The real Metadata BLOB the core's tests verify (Tests/PasskeyCoreTests/Fixtures/metadata, with its provenance).
    static var realBLOB: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PasskeyCoreTests/Fixtures/metadata/mds3-blob-no122.jwt").path
    }

    @Test("inspect --metadata names the model from the verified BLOB with its certification, reports, attestation types and icon; a BLOB that does not verify exits 2")
    func inspectWithMetadata() throws {
        let fixture = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: CLIRun.fixture("registration/yubico-tpm-windows-hello.json")))))
        let file = try privateFile("hello.json", contents: try #require(fixture.objectValue?["credential"]).serializedBytes)
        let run = try CLIRun.run(["inspect", file, "--json", "--metadata", Self.realBLOB, "--metadata-time", "2024-12-20T00:00:00Z"])
        #expect(run.status == 0, "\(run.stderr)")
        let authData = try JSONValue.parse(run.stdout).objectValue?["authenticatorData"]?.objectValue
        #expect(authData?["authenticator"] == "Windows Hello Hardware Authenticator")
        let model = authData?["metadata"]?.objectValue
        #expect(model?["blob"] == 122 && model?["certification"] == "FIDO_CERTIFIED_L1" && model?["compromise"] == [])
        #expect(model?["attestationTypes"] == ["attca"] && model?["icon"]?.stringValue?.hasPrefix("data:image/") == true)
        // Verified as of now, the BLOB's signing certificate has expired: refused, nothing decoded.
        let expired = try CLIRun.run(["inspect", file, "--json", "--metadata", Self.realBLOB])
        #expect(expired.status == 2 && expired.stdout.contains("metadata_untrusted"), "\(expired.stdout)")
        let badTime = try CLIRun.run(["inspect", file, "--metadata", Self.realBLOB, "--metadata-time", "yesterday"])
        #expect(badTime.status == 2 && badTime.stderr.contains("ISO 8601"), "\(badTime.stderr)")
    }

    @Test("a hostile server's refusal is shown escaped: its message cannot drive the terminal or forge a line of the report")
    func hostileServerMessage() async throws {
        let store = try privateFile("hostile.json")
        try await DoctorMisconfiguredServerTests.serve({ router in
            router.get("generate-registration-options") { _, _ in
                DoctorMisconfiguredServerTests.response(
                    .badRequest, "application/json", #"{"error": "x\u001b[2J", "message": "no\u001b[31m\n✓ registered ann on the real server"}"#)
            }
        }) { base in
            let run = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CLIRun, any Error>) in
                Thread {
                    continuation.resume(with: Result { try CLIRun.run(["register", "--server", base, "--username", "ann", "--store", store]) })
                }.start()
            }
            #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
            #expect(!run.stderr.contains("\u{1b}") && !run.stdout.contains("\u{1b}"), "\(run.stderr)")
            #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("✓") }, "\(run.stderr)")
            #expect(run.stderr.contains(#"no\u{1b}[31m\u{a}✓ registered ann"#), "\(run.stderr)")
        }
    }

    @Test("inspect shows what a crafted response holds escaped: no terminal controls and no forged lines in text output")
    func inspectCraftedResponse() throws {
        let clientData = JSONValue.object([
            "type": "webauthn.get", "challenge": "AAAA", "origin": "http://x\u{1b}[2J\u{1b}[31mEVIL\nverdict: valid\u{202E}",
        ]).serializedBytes
        let response = JSONValue.object([
            "id": ["a\nverdict: valid": 1], "rawId": "AAAA", "type": "public-key",
            "response": [
                "clientDataJSON": .string(Base64URL.encode(clientData)),
                "authenticatorData": .string(Base64URL.encode([UInt8](repeating: 0, count: 32) + [0x01, 0, 0, 0, 1])),
                "signature": "MEQCIA", "userHandle": "AQ",
            ],
        ])
        let file = try privateFile("crafted.json", contents: response.serializedBytes)
        let text = try CLIRun.run(["inspect", file])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!text.stdout.contains("\u{1b}") && !text.stdout.contains("\u{202E}"), "\(text.stdout)")
        #expect(text.stdout.contains(#"origin: http://x\u{1b}[2J\u{1b}[31mEVIL\u{a}verdict: valid\u{202e}"#), "\(text.stdout)")
        #expect(!text.stdout.split(separator: "\n").contains { $0.hasPrefix("verdict:") })
        #expect(text.stdout.contains(#"a\u{a}verdict: valid: 1"#), "a member name from the response is escaped too: \(text.stdout)")
        // JSON output keeps the value exact: JSON escapes controls by itself.
        let json = try CLIRun.run(["inspect", file, "--json"])
        #expect(try JSONValue.parse(json.stdout).objectValue?["clientData"]?.objectValue?["origin"]?.stringValue?.hasSuffix("verdict: valid\u{202E}") == true)
    }
}

/// The credential file `store` with its first credential's private key replaced by `other`'s first.
func swapPrivateKey(of store: String, with other: String) throws -> [UInt8] {
    func document(_ path: String) throws -> JSONObject {
        try #require(try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).objectValue)
    }
    var target = try document(store)
    let donor = try document(other)
    var credentials = try #require(target["credentials"]?.arrayValue)
    var first = try #require(credentials.first?.objectValue)
    first["privateKey"] = try #require(donor["credentials"]?.arrayValue?.first?.objectValue?["privateKey"])
    credentials[0] = .object(first)
    target["credentials"] = .array(credentials)
    return JSONValue.object(target).serializedBytes
}
