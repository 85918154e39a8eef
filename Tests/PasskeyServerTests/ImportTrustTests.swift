import Crypto
import Foundation
import PasskeyStorageSQLite
import PasskeyTestSupport
import PasskeyWire
import Testing

/// `passkey-server import` with files an attacker wrote (issue 45): records that grant power over the server come in
/// only from an export that says it carries secrets and with the operator's `--include-secrets`; names meet today's
/// rules; a line has a length limit and memory stays bounded, whatever the file. Run against the built binary, as an
/// operator would run it.
@Suite("Import: a file cannot plant power, look-alike names or a memory blow-up", .serialized)
struct ImportTrustTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { try runProgram(ServerProcess.executable, arguments) }
    }

    func write(_ lines: [String]) throws -> String {
        let file = temporaryPath("passkey-import", extension: "jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    static let user = #"{"type":"user","id":"u-1","userHandle":"AQID","username":"ann"}"#
    static let header = #"{"format":"passkey-server-export","version":1,"includesSecrets":false}"#
    static let secretsHeader = #"{"format":"passkey-server-export","version":1,"includesSecrets":true}"#

    /// What an attacker plants: a signing key whose private key they hold, an API key whose secret they know, an admin
    /// with a passkey of theirs.
    static func planted() throws -> [String] {
        let pem = P256.Signing.PrivateKey().pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        let adminKey = Base64URL.encode(try TestAuthenticator().key.coseKey.encoded)
        return [
            #"{"type":"signingKey","id":"planted","algorithm":"ES256","privateKeyPem":""# + pem + #""}"#,
            #"{"type":"apiKey","id":"key-1","name":"planted","prefix":"pks_plant","secretHash":""# + Base64URL.encode(Array(repeating: 7, count: 32)) + #""}"#,
            #"{"type":"admin","id":"admin-1","userHandle":"BAUG","name":"planted"}"#,
            #"{"type":"adminPasskey","id":"CQkJ","adminId":"admin-1","backupEligible":false,"publicKey":""# + adminKey + #""}"#,
        ]
    }

    @Test("signing keys, API keys, admins and their passkeys are refused without a secrets header and the flag, each line named; nothing is written")
    func plantedPower() async throws {
        let planted = try Self.planted()
        let database = try DurableStore.sqlite.makeDatabase()
        #expect(try await run(["migrate", "--database", database]).status == 0)
        let end = #"{"type":"end","records":5}"#
        for (lines, flag, reason) in [
            ([Self.user] + planted, true, "this file's has no header"),
            ([Self.header, Self.user] + planted + [end], true, "this file's header says it carries no secrets"),
            ([Self.secretsHeader, Self.user] + planted + [end], false, "pass import --include-secrets"),
        ] {
            let file = try write(lines)
            let refused = try await run(["import", file, "--database", database] + (flag ? ["--include-secrets"] : []))
            #expect(refused.status != 0 && refused.output.contains("nothing was imported: 4 problems in the file"), "\(refused.output)")
            let first = lines.firstIndex { $0.contains("signingKey") }.map { $0 + 1 } ?? 0
            for (offset, what) in ["a signing key", "an API key", "an admin, who", "an admin's passkey"].enumerated() {
                #expect(refused.output.contains("line \(first + offset): \(what)"), "\(what): \(refused.output)")
            }
            #expect(refused.output.contains(reason), "\(refused.output)")
        }
        let path = String(database.dropFirst("sqlite:".count))
        let repository = try await onOwnThread { try SQLiteRepository(path: path) }
        let (keys, admins, user) = (try await repository.signingKeys(), try await repository.admins(), try await repository.user(id: "u-1"))
        #expect(keys.isEmpty && admins.isEmpty && user == nil, "nothing was written")
        // From an export that carries secrets, with the operator's flag, they come in.
        let file = try write([Self.secretsHeader, Self.user] + planted + [end])
        let imported = try await run(["import", file, "--include-secrets", "--database", database])
        #expect(imported.status == 0 && imported.output.contains("imported 1 account, 0 passkeys, 1 admin, 1 admin passkey, 1 API key, 1 signing key"), "\(imported.output)")
    }

    @Test("an account linked to an app user id is power too: without secrets a file cannot make its passkeys sign in as that user of the app")
    func plantedLink() async throws {
        let database = try DurableStore.sqlite.makeDatabase()
        let linked = #"{"type":"user","id":"u-1","userHandle":"AQID","username":"mallory","externalUserId":"victim-app-user-7"}"#
        for (lines, flag) in [([linked], false), ([Self.header, linked, #"{"type":"end","records":1}"#], true)] {
            let refused = try await run(["import", try write(lines), "--database", database] + (flag ? ["--include-secrets"] : []))
            #expect(refused.status != 0 && refused.output.contains("an account linked to the app's user id victim-app-user-7"), "\(refused.output)")
        }
        let imported = try await run(
            ["import", try write([Self.secretsHeader, linked, #"{"type":"end","records":1}"#]), "--include-secrets", "--database", database])
        #expect(imported.status == 0 && imported.output.contains("imported 1 account"), "\(imported.output)")
    }

    @Test("a copied header does not let names in that registration refuses; the operator may accept older ones, each listed")
    func namesUnderTodaysRules() async throws {
        let database = try DurableStore.sqlite.makeDatabase()
        let named = { (id: String, handle: String, name: String) in
            #"{"type":"user","id":""# + id + #"","userHandle":""# + handle + #"","username":""# + name + #""}"#
        }
        let lines = [Self.header, named("u-1", "AQID", "с\u{0430}rol"), named("u-2", "AQIE", "ann lee"), named("u-3", "AQIF", "\u{1D424}iscarol"), #"{"type":"end","records":3}"#]
        let file = try write(lines)
        let refused = try await run(["import", file, "--database", database])
        #expect(refused.status != 0 && refused.output.contains("nothing was imported: 3 problems"), "\(refused.output)")
        #expect(refused.output.contains("line 2: \"username\":") && refused.output.contains("mixes Cyrillic, Latin"), "\(refused.output)")
        #expect(refused.output.contains("line 3: \"username\":") && refused.output.contains("U+0020"), "\(refused.output)")
        #expect(refused.output.contains("line 4: \"username\":") && refused.output.contains("U+1D424"), "\(refused.output)")
        let accepted = try await run(["import", file, "--accept-older-usernames", "--database", database])
        #expect(accepted.status == 0 && accepted.output.contains("imported 3 accounts"), "\(accepted.output)")
        #expect(accepted.output.contains("accepted an older username: line 3: \"ann lee\" breaks today's rules"), "\(accepted.output)")
        #expect(accepted.output.contains("accepted an older username: line 2:") && accepted.output.contains("accepted an older username: line 4:"), "\(accepted.output)")
        // An invisible name was never a new name's: not an older one, but a disguise, refused with the flag too.
        let invisible = try write([named("u-9", "AQIJ", "\u{3164}")])
        let disguised = try await run(["import", invisible, "--accept-older-usernames", "--database", try DurableStore.sqlite.makeDatabase()])
        #expect(disguised.status != 0 && disguised.output.contains("U+3164"), "\(disguised.output)")
    }

    @Test("a line over the limit is a problem of its line, read without holding it; memory stays bounded for a 64 MB line")
    func longLines() async throws {
        // A long line between two good ones: reported by number, the others still checked.
        let long = #"{"type":"user","id":"u-2","userHandle":"AQIE","username":""# + String(repeating: "a", count: 70_000) + #""}"#
        let file = try write([Self.user, long, #"{"type":"user","id":"u-3"}"#])
        let refused = try await run(["import", file, "--database", try DurableStore.sqlite.makeDatabase()])
        #expect(refused.output.contains("line 2: the line is longer than 64 KiB"), "\(refused.output)")
        #expect(refused.output.contains("line 3: \"userHandle\": missing"), "\(refused.output)")
        #expect(refused.output.contains("2 problems"), "\(refused.output)")

        // 64 MB on one line: the reader holds 64 KiB of it at most. Measured by the kernel for the import alone
        // (python's getrusage of its one child), not by a clock. .ci/run installs python3.
        let huge = temporaryPath("passkey-import-huge", extension: "jsonl")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        handle.write(Data(#"{"type":"user","id":"u-1","userHandle":"AQID","username":""#.utf8))
        let block = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<64 { handle.write(block) }
        handle.write(Data("\"}\n".utf8))
        try handle.close()
        defer { try? FileManager.default.removeItem(at: huge) }
        let measure = "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(r.stderr + r.stdout)"
        let measured = try await onOwnThread {
            try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", measure, ServerProcess.executable.path, "import", huge.path, "--database", try DurableStore.sqlite.makeDatabase()])
        }
        let lines = measured.output.split(separator: "\n")
        let kilobytes = try #require(lines.first.flatMap { Int($0) }, "\(measured.output)")
        #expect(measured.output.contains("line 1: the line is longer than 64 KiB"), "\(measured.output)")
        #expect(kilobytes < 64 * 1024, "the import's peak memory was \(kilobytes / 1024) MB for a 64 MB line")
    }
}
