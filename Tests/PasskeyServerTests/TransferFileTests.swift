import Foundation
import PasskeyCBOR
import PasskeyServer
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire
import Testing

@Suite("Export file: lines, defaults and checks")
struct TransferFileTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let key = (try? TestKey.make(.es256).coseKey.encoded) ?? []
    static let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2\nOF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r\n1RTwjmYSi9R/zpBnuQ4EiMnCqfMPWiZqB4QdbAd0E7oH50VpuZ1P087G\n-----END PRIVATE KEY-----"

    func record(_ line: String) throws -> TransferRecord { try TransferFile.record(line, line: 2, now: Self.now) }

    /// The line's error, `nil` when it was accepted.
    func refusal(_ object: JSONObject) -> String? {
        do {
            _ = try TransferFile.record(JSONValue.object(object).serialized(), line: 7, now: Self.now)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("every kind of record comes back from its line as it was written")
    func roundTrip() throws {
        let user = UserRecord(
            id: "u1", userHandle: [1, 2, 3], username: "ann", displayName: "Ann", isAnonymous: false, createdAt: Self.now,
            lastSignInAt: Self.now.addingTimeInterval(1.234), disabledAt: Self.now.addingTimeInterval(2), tokensRevokedAt: Self.now.addingTimeInterval(2))
        let credential = CredentialRecordEntry(
            id: [7, 7], userID: "u1", publicKey: Self.key, algorithm: -7, signCount: 42, uvInitialized: true, transports: ["internal", "hybrid"],
            backupEligible: true, backupState: true, aaguid: "fbfc3007-154e-4ecc-8c0b-6e020557d7bd", attestationFormat: "packed",
            attestationType: "Self", name: "iPhone", createdAt: Self.now, lastUsedAt: Self.now.addingTimeInterval(3))
        var adminCredential = credential
        adminCredential.userID = "a1"
        let records: [TransferRecord] = [
            .user(user, externalID: "app-42"), .credential(credential), .admin(AdminRecord(id: "a1", userHandle: [9], name: "Op", createdAt: Self.now)),
            .adminCredential(adminCredential),
            .apiKey(APIKeyRecord(id: "k1", name: "shop", prefix: "pks_a", secretHash: Array(repeating: 1, count: 32), createdAt: Self.now, lastUsedAt: Self.now)),
            .signingKey(SigningKeyRecord(id: "kid", privateKeyPEM: Self.pem, createdAt: Self.now, retiresAt: Self.now.addingTimeInterval(60))),
            .secret(name: "fake-credential-key", value: Array(repeating: 3, count: 32)),
        ]
        for original in records {
            let line = TransferFile.line(original)
            #expect(!line.contains("\n"), "one line per record")
            #expect(try record(line) == original, "\(line)")
        }
        let header = TransferFile.Header(rpID: "example.com", exportedAt: Self.now, includesSecrets: true)
        #expect(try TransferFile.header(TransferFile.headerLine(header)) == header)
        #expect(try TransferFile.header(TransferFile.line(records[0])) == nil, "a file without a header starts with a record")
    }

    @Test("a hand-made file from another server needs only ids, the user handle, the COSE key and backup eligibility; the rest has defaults")
    func minimalLines() throws {
        let user = try record(#"{"type":"user","id":"42","userHandle":"AQID","username":" Ann "}"#)
        guard case .user(let account, let externalID) = user else { Issue.record("not a user: \(user)"); return }
        #expect(account.username == "Ann" && account.displayName == "Ann" && !account.isAnonymous && account.createdAt == Self.now && externalID == nil)
        let anonymous = try record(#"{"type":"user","id":"43","userHandle":"BA"}"#)
        // An anonymous account without a name comes without one: the store names it at its next start, where it sees the
        // names taken.
        if case .user(let account, _) = anonymous { #expect(account.isAnonymous && account.username == nil && account.displayName == "Anonymous") }
        let generated = try record(#"{"type":"user","id":"44","userHandle":"AQIDBAUGBwgJCgsM","username":"anonymous-AQIDBAUGBwgJCgsM"}"#)
        if case .user(let account, _) = generated { #expect(account.isAnonymous && account.username == "anonymous-AQIDBAUGBwgJCgsM") }
        #expect(throws: TransferFile.LineError.self, "a server's name that is not this account's") {
            try record(#"{"type":"user","id":"45","userHandle":"AQID","username":"anonymous-AQIDBAUGBwgJCgsM"}"#)
        }

        let passkey = try record(#"{"type":"passkey","id":"BwcH","userId":"42","backupEligible":true,"publicKey":""# + Base64URL.encode(Self.key) + #""}"#)
        guard case .credential(let credential) = passkey else { Issue.record("not a passkey: \(passkey)"); return }
        #expect(credential.algorithm == -7, "taken from the COSE key")
        #expect(credential.signCount == 0 && credential.backupEligible && !credential.backupState && credential.transports.isEmpty)
        #expect(credential.aaguid == "00000000-0000-0000-0000-000000000000" && credential.attestationFormat == "none")
    }

    @Test("each bad field is refused with its line and name, one thing wrong at a time")
    func refusals() {
        let user: JSONObject = ["type": "user", "id": "u1", "userHandle": "AQID", "username": "ann"]
        #expect(refusal(user) == nil, "the control line is accepted")
        func with(_ base: JSONObject, _ name: String, _ value: JSONValue?) -> JSONObject {
            var object = base
            object[name] = value
            return object
        }
        #expect(refusal(with(user, "userHandle", nil)) == "line 7: \"userHandle\": missing")
        #expect(refusal(with(user, "userHandle", .string(Base64URL.encode([UInt8](repeating: 1, count: 65))))) == "line 7: \"userHandle\": 1 to 64 bytes were expected, not 65")
        #expect(refusal(with(user, "userHandle", "a+b/")) == "line 7: \"userHandle\": not base64url")
        #expect(refusal(with(user, "username", "ann\u{7}"))?.hasPrefix("line 7: \"username\": A username has 1 to 64 characters") == true)
        #expect(refusal(with(user, "id", " u1")) == "line 7: \"id\": 1 to 128 ASCII letters, digits and - . _ ~ @ : + (not only dots) were expected")
        #expect(refusal(with(user, "id", "a/b")) != nil, "ids go into paths")
        #expect(refusal(with(user, "id", "..")) == "line 7: \"id\": 1 to 128 ASCII letters, digits and - . _ ~ @ : + (not only dots) were expected")
        #expect(refusal(with(user, "tokensRevokedAt", "2099-01-01T00:00:00Z")) == "line 7: \"tokensRevokedAt\": 2099-01-01T00:00:00Z is in the future")
        #expect(refusal(with(user, "lastSignInAt", .string(ISO8601DateFormatter().string(from: Self.now.addingTimeInterval(600))))) == nil, "clocks may differ a little")
        #expect(refusal(with(user, "isAnonymous", true)) == "line 7: \"isAnonymous\": true for an account with a username of its own")
        #expect(refusal(with(with(user, "username", nil), "isAnonymous", false)) == "line 7: \"username\": missing for an account that is not anonymous")
        #expect(refusal(with(user, "username", "ann\u{3164}"))?.hasPrefix("line 7: \"username\":") == true, "new-account name rules for another server's data")
        #expect(refusal(with(user, "username", "с\u{0430}rol"))?.hasSuffix("this one mixes Cyrillic, Latin.") == true, "look-alikes from another server's data")
        #expect(refusal(with(user, "username", "carol\u{E000}"))?.hasPrefix("line 7: \"username\": A username may not contain private-use") == true)
        #expect(refusal(with(user, "createdAt", "yesterday"))?.hasPrefix("line 7: \"createdAt\": an ISO 8601 time") == true)
        #expect(refusal(with(user, "isAnonymous", "no")) == "line 7: \"isAnonymous\": true or false was expected, not string")
        #expect(refusal(with(user, "externalUserId", "app\u{202E}1"))?.hasPrefix("line 7: \"externalUserId\": 1 to 256 characters") == true)
        #expect(refusal(with(user, "type", "robot"))?.hasPrefix("line 7: \"type\": robot is not user, passkey") == true)

        let passkey: JSONObject = [
            "type": "passkey", "id": "BwcH", "userId": "u1", "backupEligible": false, "publicKey": .string(Base64URL.encode(Self.key)),
        ]
        #expect(refusal(passkey) == nil, "the control line is accepted")
        #expect(refusal(with(passkey, "backupEligible", nil))?.hasPrefix("line 7: \"backupEligible\": missing") == true)
        #expect(
            refusal(with(passkey, "signcount", 5)) == "line 7: \"signcount\": not a field of a passkey line (a misspelling? the fields are in docs/deploy.md, \"Moving to another database\")",
            "a misspelt field would silently import the default")
        #expect(refusal(with(passkey, "adminId", "a1"))?.hasPrefix("line 7: \"adminId\": not a field of a passkey line") == true)
        #expect(refusal(with(passkey, "publicKey", .string(Base64URL.encode([0x04] + Array(repeating: 1, count: 64)))))?.hasPrefix("line 7: \"publicKey\": not a usable COSE key") == true)
        // A P-256 key whose point is not on the curve parses, but could never verify a signature.
        let offCurve = CBOREncoder().encode(.map([.int(1): .int(2), .int(3): .int(-7), .int(-1): .int(1), .int(-2): .bytes(Array(repeating: 1, count: 32)), .int(-3): .bytes(Array(repeating: 2, count: 32))]))
        #expect(refusal(with(passkey, "publicKey", .string(Base64URL.encode(offCurve))))?.hasPrefix("line 7: \"publicKey\": not a usable COSE key") == true)
        #expect(refusal(with(passkey, "algorithm", -257)) == "line 7: \"algorithm\": -257 is not the key's own algorithm -7")
        #expect(refusal(with(passkey, "backupState", true)) == "line 7: \"backupState\": true while backupEligible is false")
        #expect(refusal(with(passkey, "signCount", -1)) == "line 7: \"signCount\": an integer from 0 to 4294967295 was expected")
        #expect(refusal(with(passkey, "aaguid", "not-a-uuid"))?.hasPrefix("line 7: \"aaguid\": not a UUID") == true)
        #expect(refusal(with(passkey, "id", .string(Base64URL.encode([UInt8](repeating: 1, count: 1_024))))) == "line 7: \"id\": 1 to 1023 bytes were expected, not 1024")
        #expect(refusal(with(passkey, "transports", [1])) == "line 7: \"transports\": an array of strings was expected")

        let signingKey: JSONObject = ["type": "signingKey", "id": "kid", "privateKeyPem": .string(Self.pem)]
        #expect(refusal(signingKey) == nil, "the control line is accepted")
        #expect(refusal(with(signingKey, "privateKeyPem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")) == "line 7: \"privateKeyPem\": not a P-256 private key in PEM")
        #expect(refusal(with(signingKey, "algorithm", "RS256")) == "line 7: \"algorithm\": this server signs with ES256 only")
        let apiKey: JSONObject = ["type": "apiKey", "id": "k1", "name": "shop", "prefix": "pks_a", "secretHash": .string(Base64URL.encode(Array(repeating: 1, count: 32)))]
        #expect(refusal(apiKey) == nil, "the control line is accepted")
        #expect(refusal(with(apiKey, "secretHash", "AQ")) == "line 7: \"secretHash\": 32 bytes were expected, not 1")
        let secret: JSONObject = ["type": "secret", "name": "fake-credential-key", "value": .string(Base64URL.encode(Array(repeating: 1, count: 32)))]
        #expect(refusal(secret) == nil, "the control line is accepted")
        #expect(refusal(with(secret, "value", "AQ")) == "line 7: \"value\": 32 bytes were expected, not 1", "a short key could be guessed")
        #expect(refusal(with(secret, "name", "other"))?.hasPrefix("line 7: \"name\": other is not a secret this server keeps") == true)
        // The key that seals ceremonies in progress: read from files that carry it (exports before it stayed behind),
        // and never moved.
        #expect(refusal(with(secret, "name", "challenge-seal-key")) == nil)
        let sealKey = TransferRecord.secret(name: "challenge-seal-key", value: Array(repeating: 1, count: 32))
        #expect(!TransferFile.carries(sealKey))
        #expect(TransferFile.carries(.secret(name: "fake-credential-key", value: Array(repeating: 1, count: 32))))
        // The OpenID Provider's: its RSA key moves (ID tokens keep verifying), its request seal stays like the ceremonies'.
        let rsa: JSONObject = ["type": "secret", "name": "oidc-rs256-key", "value": .string(Base64URL.encode(Array(repeating: 2, count: 1_192)))]
        #expect(refusal(rsa) == nil)
        #expect(TransferFile.carries(.secret(name: "oidc-rs256-key", value: Array(repeating: 2, count: 1_192))))
        #expect(!TransferFile.carries(.secret(name: "oidc-request-seal-key", value: Array(repeating: 1, count: 32))))
    }

    @Test("a first line that is not this format's header, or of a later version, is refused")
    func headers() {
        func headerError(_ line: String) -> String? {
            do {
                _ = try TransferFile.header(line)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(headerError(#"{"format":"passkey-server-export","version":1}"#) == nil)
        #expect(headerError(#"{"format":"passkey-server-export","version":2}"#) == "line 1: the file is version 2 of the format; this server reads version 1: use a newer passkey-server")
        #expect(headerError(#"{"format":"other","version":1}"#) == "line 1: \"format\" is not \"passkey-server-export\": this is not a passkey-server export")
        #expect(headerError("[1]") == "line 1: not a JSON object")
        #expect(headerError(#"{"format":"passkey-server-export","version":1,"rpID":"example.com"}"#)?.hasPrefix("line 1: \"rpID\": not a field of the header") == true)
        #expect(
            headerError(#"{"format":"passkey-server-export","version":2,"tenant":"t1"}"#)?.contains("the file is version 2") == true,
            "a later version's new field: the version is what to say")
        #expect(headerError("{") != nil)
    }

    /// A whole file's problems, as the command lists them.
    func problems(_ lines: [String], separator: String = "\n") -> [String] {
        do {
            _ = try TransferFile.read(Array((lines.joined(separator: separator) + separator).utf8), now: Self.now)
            return []
        } catch {
            return error.lines.map(\.description)
        }
    }

    @Test("a whole file: CRLF and a byte order mark are read; a header needs the end line with the right count; keys come once; passkeys come with their owners")
    func wholeFiles() throws {
        let header = TransferFile.headerLine(.init(rpID: "example.com", exportedAt: Self.now, includesSecrets: false))
        let user = #"{"type":"user","id":"u1","userHandle":"AQID","username":"ann"}"#
        let passkey = #"{"type":"passkey","id":"BwcH","userId":"u1","backupEligible":true,"publicKey":""# + Base64URL.encode(Self.key) + #""}"#
        let end = TransferFile.endLine(records: 2)
        #expect(problems([header, passkey, user, end]) == [])
        let read = try TransferFile.read(Array(("\u{FEFF}" + [header, passkey, "", user, end].joined(separator: "\r\n") + "\r\n").utf8), now: Self.now)
        #expect(read.header?.rpID == "example.com" && read.records.map(\.rank) == [0, 1], "CRLF and BOM; the account comes first")

        #expect(problems([header, user, passkey]) == ["line 3: the file ends without the end line an export writes last: it was cut short (an export that failed, or a copy not finished); export again"])
        #expect(problems([header, user, TransferFile.endLine(records: 3)]) == ["line 3: the end line counts 3 records, and the file holds 1"])
        #expect(problems([header, user, end, passkey]).first == "line 4: a line after the end line (line 3)")
        #expect(problems([user, passkey]) == [], "a hand-made file needs neither header nor end line")
        #expect(problems([user, user.replacingOccurrences(of: "u1", with: "u2").replacingOccurrences(of: "ann", with: "ANN")]) == [
            "line 2: the user handle of this line is on line 1 too", "line 2: the username of this line is on line 1 too",
        ])
        #expect(problems([user, passkey, passkey]) == ["line 3: the passkey id of this line is on line 2 too"])
        #expect(problems([passkey]) == ["line 1: the passkey's account u1 is not in the file: a passkey comes with its account"])
        #expect(problems([user, "{\"type\":", passkey.replacingOccurrences(of: "true", with: "1")]).count == 2, "every bad line is listed")
        #expect(problems([header, TransferFile.endLine(records: 0)]) == [], "an empty database's export is whole")
        #expect(problems([" "]) == ["line 1: the file holds no records"])
        #expect(
            problems([#"{"type":"user","id":"u1"}"#, passkey]) == [#"line 1: "userHandle": missing"#],
            "a passkey whose account is on a bad line is not reported again")
        #expect(problems([user + "\u{0}"]).count == 1)
        // A bad header is one problem: the end line's count is of the records, which it is not.
        let badHeader = #"{"format":"passkey-server-export","version":1,"tenant":"t1"}"#
        #expect(problems([badHeader, user, TransferFile.endLine(records: 1)]).count == 1, "\(problems([badHeader, user, TransferFile.endLine(records: 1)]))")
        #expect(problems(["not json", header, user, TransferFile.endLine(records: 2)]).first == "line 1: invalid JSON at byte 0: invalid literal")
        #expect(problems(["not json", header, user]).contains { $0.hasPrefix("line 2: \"type\": missing") }, "only the first line may be the header")
        // Read in pieces of every size, a file comes out the same: a BOM, CRLF and lines cut anywhere.
        let whole = Array(("\u{FEFF}" + [header, passkey, "", user, end].joined(separator: "\r\n") + "\r\n").utf8)
        for size in [1, 2, 3, 5, 64] {
            var reader = TransferFile.Reader(now: Self.now)
            var start = 0
            while start < whole.count {
                reader.feed(whole[start..<min(start + size, whole.count)])
                start += size
            }
            let contents = try reader.finish()
            #expect(contents.header?.rpID == "example.com" && contents.records.map(\.rank) == [0, 1], "pieces of \(size)")
        }
        do {
            _ = try TransferFile.read([0xff, 0xfe, 0x0a], now: Self.now)
            Issue.record("bytes that are not UTF-8 were read")
        } catch {
            #expect(error.lines.map(\.description) == ["line 1: not UTF-8 text"])
        }
    }
}
