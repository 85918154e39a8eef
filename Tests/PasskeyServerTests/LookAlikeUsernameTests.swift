import Foundation
import HTTPTypes
import HummingbirdTesting
import PasskeyCore
import PasskeyRelyingParty
import PasskeyStorage
@testable import PasskeyServer
import PasskeyTestSupport
import PasskeyWire
import PasskeyServerTestSupport
import Testing

/// Look-alike usernames (issue: with `carol` registered, `саrol` and `ｃａｒｏｌ` each registered). Sent as an attacker
/// would, over HTTP against the real router, after the real account exists.
@Suite("Usernames follow RFC 8265 and TR39: look-alikes of an account are refused")
struct LookAlikeUsernameTests {
    /// Registers `carol` through the ceremony API.
    static func registerCarol(_ client: some TestClientProtocol, device: Device) async throws {
        let options = try await client.call(.get, "/generate-registration-options?username=carol")
        let registered = try await client.call(
            .post, "/verify-registration", json: ["username": "carol", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
        #expect(registered.status == .ok, "\(registered.json)")
    }

    @Test("fullwidth and halfwidth spellings of a name are that name: 409 username_taken, and they sign in to it")
    func widthVariants() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            try await Self.registerCarol(client, device: device)
            for name in ["ｃａｒｏｌ", "ＣＡＲＯＬ", "Ｃarol", "carｏl"] {
                let answer = try await client.call(.post, "/generate-registration-options", json: ["username": .string(name)])
                #expect(answer.status == .conflict && answer["error"] == "username_taken", "\(name): \(answer.json)")
                // The same key finds the account at sign-in: its passkey is listed, not a made-up one.
                let signIn = try await client.call(.post, "/generate-authentication-options", json: ["username": .string(name)])
                let listed = signIn["allowCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
                #expect(listed == [Base64URL.encode(device.authenticator.credentialID)], "\(name)")
            }
        }
    }

    @Test("letters of two scripts that do not go together are refused: 400 username_invalid naming the scripts", arguments: [
        ("с\u{0430}rol", "Cyrillic, Latin"),  // Cyrillic с and а among Latin letters
        ("carοl", "Greek, Latin"),  // Greek omicron
        ("раypal", "Cyrillic, Latin"),
        ("ａpple\u{0430}", "Cyrillic, Latin"),  // fullwidth Latin counts as Latin
        ("ann\u{05D0}", "Hebrew, Latin"),
    ])
    func mixedScripts(name: String, scripts: String) async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            try await Self.registerCarol(client, device: device)
            let answer = try await client.call(.post, "/generate-registration-options", json: ["username": .string(name)])
            #expect(answer.status == .badRequest && answer["error"] == "username_invalid", "\(name): \(answer.json)")
            #expect(answer["message"]?.stringValue?.hasSuffix("this one mixes \(scripts).") == true, "\(answer.json)")
        }
    }

    @Test("unassigned, noncharacter and private-use code points are refused in new names", arguments: [
        ("carol", 0xFFFE, "U+FFFE"), ("carol", 0xFDD0, "U+FDD0"), ("carol", 0xE000, "U+E000"), ("", 0xF8FF, "U+F8FF"),
        ("carol", 0x0378, "U+0378"), ("carol", 0x10FFFD, "U+10FFFD"),
    ] as [(String, UInt32, String)])
    func meaninglessCodePoints(prefix: String, code: UInt32, shown: String) async throws {
        let name = prefix + String(Character(try #require(Unicode.Scalar(code))))
        let server = TestServer()
        try await server.run { client in
            let answer = try await client.call(.post, "/generate-registration-options", json: ["username": .string(name)])
            #expect(answer.status == .badRequest && answer["error"] == "username_invalid", "\(answer.json)")
            #expect(answer["message"]?.stringValue?.contains("(\(shown))") == true, "\(answer.json)")
        }
    }

    @Test("what one language writes together stays allowed; so do ASCII punctuation, digits and one script other than Latin", arguments: [
        "山田taro", "やまだタロウ山田", "김철수kim", "王小明ㄅ", "Иван_1988", "ελένη", "O'Brien-Smith", "ｃａｒｏ", "straße",
        "ann.lee+1@example.com", "١٢٣", "ÉMILE", "ñandú",
    ])
    func allowedNames(name: String) async throws {
        let server = TestServer()
        try await server.run { client in
            let answer = try await client.call(.post, "/generate-registration-options", json: ["username": .string(name)])
            #expect(answer.status == .ok, "\(name): \(answer.json)")
        }
    }

    /// The look-alikes of `kiscarol` a black-box review registered as new accounts (issue 45), each with the code point
    /// a refusal must name: compatibility characters (mathematical, circled, Roman numeral, script, superscript,
    /// modifier letters, monospace, mathematical digits), which RFC 8265's IdentifierClass disallows.
    static let compatibilityLookAlikes: [(name: String, code: String)] = [
        ("\u{1D424}iscarol", "U+1D424"),  // 𝐤 MATHEMATICAL BOLD SMALL K
        ("kis\u{24D2}arol", "U+24D2"),  // ⓒ CIRCLED LATIN SMALL LETTER C
        ("k\u{2170}scarol", "U+2170"),  // ⅰ SMALL ROMAN NUMERAL ONE
        ("kiscaro\u{2113}", "U+2113"),  // ℓ SCRIPT SMALL L
        ("k\u{2071}scarol", "U+2071"),  // ⁱ SUPERSCRIPT LATIN SMALL LETTER I
        ("\u{1D4F}iscarol", "U+1D4F"),  // ᵏ MODIFIER LETTER SMALL K
        ("\u{1D694}\u{1D692}\u{1D69C}\u{1D68C}\u{1D68A}\u{1D69B}\u{1D698}\u{1D695}", "U+1D694"),  // 𝚔𝚒𝚜𝚌𝚊𝚛𝚘𝚕, monospace
        ("kiscarol\u{1D7D9}", "U+1D7D9"),  // 𝟙 MATHEMATICAL DOUBLE-STRUCK DIGIT ONE
    ]

    @Test("compatibility look-alikes of an account are refused at registration, naming the code point", arguments: compatibilityLookAlikes)
    func compatibilityCharacters(name: String, code: String) async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=kiscarol")
            let registered = try await client.call(
                .post, "/verify-registration", json: ["username": "kiscarol", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok, "\(registered.json)")
            for method in [HTTPRequest.Method.get, .post] {
                let answer =
                    method == .get
                    ? try await client.call(.get, "/generate-registration-options?username=" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
                    : try await client.call(.post, "/api/registration-challenge", json: ["username": .string(name)])
                #expect(answer.status == .badRequest && answer["error"] == "username_invalid", "\(name): \(answer.json)")
                #expect(answer["message"]?.stringValue?.contains(code) == true, "\(name): \(answer.json)")
            }
        }
    }

    /// Letters IdentifierClass takes that a second black-box review registered beside `google`, `alice`, `admin`,
    /// `alice!` and `x:y`: technical (IPA), obsolete and click letters, and a dot above on an i. UTS #39's recommended
    /// set and its check for a doubled dot refuse them.
    @Test("letters Unicode does not recommend in identifiers are refused, naming the code point", arguments: [
        ("\u{0261}oogle", "U+0261"), ("a\u{01C0}ice", "U+01C0"), ("ali\u{0307}ce", "U+0307"), ("adm\u{0131}\u{0307}n", "U+0307"),
        ("\u{0251}dmin", "U+0251"), ("alice\u{01C3}", "U+01C3"), ("x\u{02D0}y", "U+02D0"),
    ])
    func notRecommended(name: String, code: String) async throws {
        let server = TestServer()
        try await server.run { client in
            for (index, existing) in ["google", "alice", "admin", "alice!", "x:y"].enumerated() {
                let device = try Device(server: server, credentialID: UInt8(0x40 + index))
                let options = try await client.call(.post, "/generate-registration-options", json: ["username": .string(existing)])
                let registered = try await client.call(
                    .post, "/verify-registration",
                    json: ["username": .string(existing), "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
                #expect(registered.status == .ok, "\(existing): \(registered.json)")
            }
            let answer = try await client.call(.post, "/generate-registration-options", json: ["username": .string(name)])
            #expect(answer.status == .badRequest && answer["error"] == "username_invalid", "\(name): \(answer.json)")
            #expect(answer["message"]?.stringValue?.contains(code) == true, "\(name): \(answer.json)")
        }
    }

    @Test("a look-alike of a contact account's address is refused as a username and as a contact")
    func contactLookAlike() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let contact = try await client.call(.get, "/generate-registration-options?contact=email")
            #expect(try await client.signUp(contact, device, contact: "ann@example.com").status == .ok)
            let lookAlike = "\u{1D68A}nn@example.com"  // 𝚊 MATHEMATICAL MONOSPACE SMALL A
            let named = try await client.call(.post, "/generate-registration-options", json: ["username": .string(lookAlike)])
            #expect(named.status == .badRequest && named["error"] == "username_invalid", "\(named.json)")
            #expect(named["message"]?.stringValue?.contains("U+1D68A") == true, "\(named.json)")
            let again = try await client.call(.get, "/generate-registration-options?contact=email")
            let asContact = try await client.signUp(again, try Device(server: server, credentialID: 0x2a), contact: .string(lookAlike))
            #expect(asContact.status == .badRequest && asContact["error"] == "contact_invalid", "\(asContact.json)")
        }
    }

    @Test("connect tokens refuse a compatibility look-alike as a new account's name, naming the code point")
    func connectLookAlike() async throws {
        let harness = try await ConnectHarness()
        try await harness.server.run { client in
            for (name, code) in Self.compatibilityLookAlikes {
                let refused = try await client.call(
                    .post, "/connect/tokens", json: ["type": "passkey-append", "user": ["id": .string("app-\(code)"), "name": .string(name)]],
                    headers: harness.backend)
                #expect(refused.status == .badRequest && refused["error"] == "username_invalid", "\(name): \(refused.json)")
                #expect(refused["message"]?.stringValue?.contains(code) == true, "\(name): \(refused.json)")
            }
        }
    }

    @Test("an import file's compatibility look-alike is a problem of its line, with or without a header")
    func importLookAlike() throws {
        let header = #"{"type":"passkey-server-export","version":1,"exportedAt":"2026-01-01T00:00:00Z","includesSecrets":false}"#
        for (name, code) in Self.compatibilityLookAlikes {
            let user = #"{"type":"user","id":"u1","userHandle":"AQID","username":"\#(name)","displayName":"C","isAnonymous":false,"createdAt":"2026-01-01T00:00:00Z"}"#
            for lines in [[user], [header, user, #"{"type":"end","records":1}"#]] {
                do {
                    _ = try TransferFile.read(Array(lines.joined(separator: "\n").utf8), now: Date())
                    Issue.record("\(name) was imported")
                } catch {
                    #expect(error.lines.contains { $0.reason.contains(code) }, "\(name): \(error.lines)")
                }
            }
        }
    }

    @Test("an app's own user gets a new account only under a new account's rules; one already linked keeps its name")
    func appUserLookAlike() async throws {
        let server = TestServer()
        let service = CeremonyService(
            repository: server.repository, relyingParty: RelyingParty(id: "localhost", origins: ["http://localhost:8080"]),
            configuration: server.configuration.ceremonies)
        await #expect(throws: RelyingPartyError.self) { _ = try await service.account(forAppUser: "app-1", name: "\u{1D424}iscarol", displayName: nil) }
        let made = try await service.account(forAppUser: "app-2", name: "kiscarol", displayName: nil)
        #expect(made.username == "kiscarol")
        #expect(try await service.account(forAppUser: "app-2", name: "\u{1D424}iscarol", displayName: nil).id == made.id)
    }

    @Test("spaces, symbols, emoji and punctuation other than ASCII's are refused in new names", arguments: [
        ("ann lee", "U+0020"), ("ann😀", "U+1F600"), ("ann\u{2010}lee", "U+2010"), ("a\u{2215}b", "U+2215"), ("ǅemal", "U+01C5"),
        ("ann·lee", "U+00B7"), ("\u{0661}\u{06F1}", "U+06F0…U+06F9"), ("l·l", "U+00B7"), ("ヤマダ・タロウ", "U+30FB"),
    ])
    func otherDisallowed(name: String, code: String) async throws {
        let server = TestServer()
        try await server.run { client in
            let answer = try await client.call(.post, "/generate-registration-options", json: ["username": .string(name)])
            #expect(answer.status == .badRequest && answer["error"] == "username_invalid", "\(name): \(answer.json)")
            #expect(answer["message"]?.stringValue?.contains(code) == true, "\(name): \(answer.json)")
        }
    }

    @Test("an existing account whose name predates the rules still signs in by it")
    func existingMixedNameStillFound() async throws {
        let server = TestServer()
        let mixed = UserRecord(userHandle: [9], username: "саrol", displayName: "Mixed", isAnonymous: false, createdAt: Date())
        try await server.repository.register(
            CredentialRecordEntry(
                id: [9, 9, 9], userID: mixed.id, publicKey: [0xa5, 1, 2, 3], algorithm: -7, signCount: 0, uvInitialized: true, transports: [],
                backupEligible: false, backupState: false, aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none",
                attestationType: "None", createdAt: Date()),
            for: mixed)
        try await server.run { client in
            let signIn = try await client.call(.get, "/generate-authentication-options?username=%D1%81%D0%B0rol")
            #expect(signIn["allowCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == [Base64URL.encode([9, 9, 9])])
        }
    }

    @Test("an anonymous registration that echoes the options' generated user.name is accepted; another name stays refused")
    func anonymousEcho() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options")
            let generated = try #require(options["user"]?.objectValue?["name"]?.stringValue)
            #expect(generated.hasPrefix("anonymous-"))
            let other = try await client.call(
                .post, "/verify-registration", json: ["username": "anonymous-zzzzzzzz", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(other.status == .badRequest && other["error"] == "username_mismatch", "\(other.json)")
            let again = try await client.call(.get, "/generate-registration-options")
            let echoed = try await client.call(
                .post, "/verify-registration",
                json: ["username": .string(try #require(again["user"]?.objectValue?["name"]?.stringValue)), "challengeKey": again["challengeKey"] ?? nil,
                    "cred": device.create(again.json)])
            #expect(echoed.status == .ok && echoed["verified"] == true && echoed["isAnonymous"] == true, "\(echoed.json)")
        }
    }

    @Test("collisions a migration leaves are reported by account and holder, escaped, and bounded")
    func collisionReport() {
        let holder = UserRecord(id: "u-old", userHandle: [1], username: "carol", displayName: "Carol", isAnonymous: false, createdAt: Date())
        let account = UserRecord(id: "u-new", userHandle: [2], username: "ｃａｒｏｌ\u{202E}", displayName: "C", isAnonymous: false, createdAt: Date())
        let lines = UsernameCollisionReport.lines([UsernameCollision(account: account, holder: holder), UsernameCollision(account: account, holder: nil)])
        #expect(lines == [
            "account u-new (\"ｃａｒｏｌ\\u{202e}\") is not found by its username: account u-old (\"carol\") has the same name under the username rules; its passkeys still sign in without a username",
            "account u-new (\"ｃａｒｏｌ\\u{202e}\") is not found by its username: an account deleted since has the same name under the username rules; its passkeys still sign in without a username",
        ])
        let many = UsernameCollisionReport.lines(Array(repeating: UsernameCollision(account: account, holder: holder), count: 25))
        #expect(many.count == 21 && many.last == "and 5 more accounts like these")
    }
}
