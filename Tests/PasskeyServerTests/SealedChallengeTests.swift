import Crypto
import Foundation
import HummingbirdTesting
import PasskeyCore
@testable import PasskeyRelyingParty
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyWire
import Testing

/// The sealed sign-in challenge itself: what it carries, and that nothing but the server's own, unaltered, opens.
@Suite("Sealed sign-in challenges: the format")
struct SealedChallengeFormatTests {
    let key = SymmetricKey(data: [UInt8](repeating: 7, count: 32))
    let issued = Date(timeIntervalSince1970: 1_800_000_000.123)

    func make(tag: [UInt8]?) -> SealedChallenge {
        SealedChallenge(issuedAt: issued, expiresAt: issued.addingTimeInterval(60), nonce: Array(1...16), accountTag: tag)
    }

    @Test("sealed and opened again, it gives back its times, nonce and account tag; its key is the nonce")
    func roundTrip() throws {
        for tag in [nil, SealedChallenge.accountTag(userID: "user-1", key: key)] {
            let challenge = make(tag: tag)
            let value = challenge.sealed(key: key)
            #expect(Base64URL.decode(value)?.count == (tag == nil ? 50 : 66))
            let opened = try #require(SealedChallenge.open(value, key: key))
            #expect(opened == challenge)
            #expect(opened.issuedAt.timeIntervalSince1970 == 1_800_000_000.123 && opened.expiresAt.timeIntervalSince1970 == 1_800_000_060.123)
            #expect(opened.key == Base64URL.encode(Array(1...16)))
            // Sealing what was opened gives the same value: the times are whole milliseconds.
            #expect(opened.sealed(key: key) == value)
        }
    }

    @Test("any one byte changed, any byte cut or added, or another key: it does not open")
    func tamper() throws {
        for tag in [nil, SealedChallenge.accountTag(userID: "user-1", key: key)] {
            let bytes = try #require(Base64URL.decode(make(tag: tag).sealed(key: key)))
            for index in bytes.indices {
                var altered = bytes
                altered[index] ^= 0x01
                #expect(SealedChallenge.open(Base64URL.encode(altered), key: key) == nil, "byte \(index)")
            }
            #expect(SealedChallenge.open(Base64URL.encode(Array(bytes.dropLast())), key: key) == nil)
            #expect(SealedChallenge.open(Base64URL.encode(bytes + [0]), key: key) == nil)
            #expect(SealedChallenge.open(Base64URL.encode(bytes), key: SymmetricKey(data: [UInt8](repeating: 8, count: 32))) == nil)
        }
    }

    @Test("a valid MAC over an unknown version, an unknown flag, or a time past the year 9999 does not open it")
    func wellFormedOnly() {
        let body: [UInt8] = [1, 0] + [UInt8](repeating: 0, count: 16) + Array(1...16)
        func sealed(_ body: [UInt8]) -> String { Base64URL.encode(body + SealedChallenge.mac(body, key: key)) }
        #expect(SealedChallenge.open(sealed(body), key: key) != nil)  // the same, well formed: it opens
        var version = body
        version[0] = 2
        #expect(SealedChallenge.open(sealed(version), key: key) == nil)
        var flag = body
        flag[1] = 2
        #expect(SealedChallenge.open(sealed(flag), key: key) == nil)
        // Flag 1 announces an account tag that is not there.
        var missing = body
        missing[1] = 1
        #expect(SealedChallenge.open(sealed(missing), key: key) == nil)
        var late = body
        for index in 10..<18 { late[index] = 0xff }
        #expect(SealedChallenge.open(sealed(late), key: key) == nil)
    }

    @Test("what is not a sealed challenge: a stored ceremony's 32 random bytes, text that is not base64url, a long string")
    func notSealed() {
        #expect(SealedChallenge.open(Base64URL.encode([UInt8](repeating: 0x5a, count: 32)), key: key) == nil)
        #expect(SealedChallenge.open("not base64url!", key: key) == nil)
        #expect(SealedChallenge.open("", key: key) == nil)
        #expect(SealedChallenge.open(String(repeating: "A", count: 100_000), key: key) == nil)
    }

    @Test("an account tag admits its account only; options for a name without one carry random bytes instead")
    func accountTag() {
        let challenge = make(tag: SealedChallenge.accountTag(userID: "user-1", key: key))
        #expect(challenge.admits(userID: "user-1", key: key))
        #expect(!challenge.admits(userID: "user-2", key: key))
        #expect(!challenge.admits(userID: "user-1", key: SymmetricKey(data: [UInt8](repeating: 8, count: 32))))
        // Without a tag (options without a name), any account's passkey may answer.
        #expect(make(tag: nil).admits(userID: "anyone", key: key))
    }
}

/// Sealed challenges through the server: sign-in options store nothing, and every guarantee a stored challenge gave
/// still holds.
@Suite("Sealed sign-in challenges: the ceremonies")
struct SealedChallengeCeremonyTests {
    func register(_ device: Device, _ name: String, _ client: some TestClientProtocol) async throws {
        let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
        let done = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
        #expect(done.status == .ok, "\(done.json)")
    }

    @Test("sign-in options store nothing; their challenge carries an account tag when a name was given, known or not")
    func optionsStoreNothing() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            try await register(device, "ann", client)
            let before = await server.repository.challengeCount()
            for (path, length) in [("", 50), ("?username=ann", 66), ("?username=nobody", 66)] {
                let options = try await client.call(.get, "/generate-authentication-options" + path)
                #expect(options.status == .ok)
                let bytes = options["challenge"]?.stringValue.flatMap(Base64URL.decode)
                #expect(bytes?.count == length && bytes?.first == SealedChallenge.version, "\(path)")
                #expect(options["challengeKey"]?.stringValue.flatMap(Base64URL.decode) == bytes.map { Array($0[18..<34]) })
            }
            #expect(await server.repository.challengeCount() == before)
        }
    }

    @Test("a sealed challenge the client changed, one expired, or one sent with another ceremony's key is refused; nothing is recorded")
    func refused() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            try await register(device, "ann", client)
            let credentialID = device.authenticator.credentialID
            // Changed: the nonce, then the account tag (ann's options made to look discoverable is a changed flag).
            let named = try await client.call(.get, "/generate-authentication-options?username=ann")
            for index in [1, 20, 40, 60] {
                let answer = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(try named.withChallengeBitFlipped(at: index), signCount: 1)])
                #expect(answer.status == .badRequest && answer["error"] == "challenge_invalid", "byte \(index): \(answer.json)")
            }
            // Another ceremony's key: refused, and the ceremony itself is still open.
            let other = try await client.call(.get, "/generate-authentication-options")
            let crossed = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(named.json, signCount: 1), "challengeKey": other["challengeKey"] ?? nil])
            #expect(crossed["error"] == "challenge_invalid", "\(crossed.json)")
            #expect(await server.repository.credential(id: credentialID)?.signCount == 0)
            let completed = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(named.json, signCount: 1), "challengeKey": named["challengeKey"] ?? nil])
            #expect(completed.status == .ok, "\(completed.json)")
            // Expired: 60 seconds after the options.
            let late = try await client.call(.get, "/generate-authentication-options")
            server.clock.advance(60)
            let expired = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(late.json, signCount: 2)])
            #expect(expired["error"] == "challenge_invalid", "\(expired.json)")
            #expect(await server.repository.credential(id: credentialID)?.signCount == 1)
        }
    }

    @Test("a sealed challenge is used once: the same answer again, or another answer to it, is refused as a used challenge")
    func singleUse() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            try await register(device, "ann", client)
            let options = try await client.call(.get, "/generate-authentication-options?username=ann")
            let answer = try device.get(options.json, signCount: 3)
            #expect(try await client.call(.post, "/verify-authentication", json: ["cred": answer]).status == .ok)
            // Replayed: the used challenge answers, not the counter (a replay is no clone to report).
            let replayed = try await client.call(.post, "/verify-authentication", json: ["cred": answer])
            #expect(replayed["error"] == "challenge_invalid", "\(replayed.json)")
            let fresh = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(options.json, signCount: 4)])
            #expect(fresh["error"] == "challenge_invalid", "\(fresh.json)")
            #expect(await server.repository.credential(id: device.authenticator.credentialID)?.signCount == 3)
        }
    }

    @Test("options made before an account was disabled do not sign in after it is enabled again; new ones do")
    func disabledInBetween() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            try await register(device, "ann", client)
            let ann = try #require(await server.repository.user(username: "ann"))
            let before = try await client.call(.get, "/generate-authentication-options?username=ann")
            server.clock.advance(1)
            _ = try await server.repository.setUserDisabled(id: ann.id, disabledAt: server.clock.now)
            server.clock.advance(1)
            _ = try await server.repository.setUserDisabled(id: ann.id, disabledAt: nil)
            let stale = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(before.json, signCount: 1)])
            #expect(stale["error"] == "challenge_invalid", "\(stale.json)")
            #expect(await server.repository.credential(id: device.authenticator.credentialID)?.signCount == 0)
            let after = try await client.call(.get, "/generate-authentication-options?username=ann")
            let signedIn = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(after.json, signCount: 2)])
            #expect(signedIn.status == .ok && signedIn["username"] == "ann", "\(signedIn.json)")
        }
    }

    @Test("another server's sealed challenge does not open here, even for a passkey registered on both")
    func otherServersKey() async throws {
        let first = TestServer()
        let second = TestServer()
        let device = try Device(server: first)
        let options = try await first.run { client in
            try await register(device, "ann", client)
            return try await client.call(.get, "/generate-authentication-options")
        }
        try await second.run { client in
            try await register(device, "ann", client)
            let answer = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(options.json, signCount: 1)])
            #expect(answer["error"] == "challenge_invalid", "\(answer.json)")
        }
    }

    @Test("a stored sign-in challenge (options from before challenges were sealed) still completes, once, by key or by value")
    func storedChallengesStillWork() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            try await register(device, "ann", client)
            let ann = try #require(await server.repository.user(username: "ann"))
            let now = server.clock.now
            for (index, byKey) in [true, false].enumerated() {
                let challenge = Base64URL.encode([UInt8](repeating: UInt8(0x40 + index), count: 32))
                await server.repository.saveChallenge(
                    ChallengeRecord(
                        key: "stored-\(index)", challenge: challenge, ceremony: .authentication, userID: ann.id, username: "ann",
                        allowedCredentialIDs: [device.authenticator.credentialID], createdAt: now, expiresAt: now.addingTimeInterval(60)))
                let options: JSONValue = ["challenge": .string(challenge)]
                var body: JSONObject = ["cred": try device.get(options, signCount: UInt32(1 + index * 2))]
                if byKey { body["challengeKey"] = .string("stored-\(index)") }
                let answer = try await client.call(.post, "/verify-authentication", json: .object(body))
                #expect(answer.status == .ok && answer["username"] == "ann", "\(answer.json)")
                body["cred"] = try device.get(options, signCount: UInt32(2 + index * 2))
                let again = try await client.call(.post, "/verify-authentication", json: .object(body))
                #expect(again["error"] == "challenge_invalid", "\(again.json)")
            }
            #expect(await server.repository.challengeCount() == 0)
        }
    }
}
