import Crypto
import Foundation
import HummingbirdTesting
import PasskeyCore
@testable import PasskeyRelyingParty
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyWire
import Testing

/// The sealed registration challenge itself: what it carries, and that nothing but the server's own, unaltered, opens.
@Suite("Sealed registration challenges: the format")
struct SealedRegistrationChallengeFormatTests {
    let key = SymmetricKey(data: [UInt8](repeating: 7, count: 32))
    let issued = Date(timeIntervalSince1970: 1_800_000_000.123)

    func make(_ username: String?, _ displayName: String?, _ contacts: [ContactKind] = [], nonce: [UInt8] = Array(1...16))
        -> SealedRegistrationChallenge
    {
        SealedRegistrationChallenge(
            issuedAt: issued, expiresAt: issued.addingTimeInterval(60), nonce: nonce, username: username, displayName: displayName,
            acceptedContacts: contacts)
    }

    /// Every shape options make: named, anonymous, the sign-up sheet's with and without a display name, names in other
    /// scripts, and names at their longest.
    var shapes: [SealedRegistrationChallenge] {
        [
            make("ann", "Ann"), make(nil, "Anonymous"), make(nil, nil, [.email, .phone]), make(nil, "Zoë", [.phone]),
            make("zoë.müller", "Zoë Müller 🎉"), make(String(repeating: "𝒜", count: 64), String(repeating: "名", count: 64)),
        ]
    }

    @Test("sealed and opened again, it gives back its times, nonce, names and contact kinds; its key is the nonce")
    func roundTrip() throws {
        for challenge in shapes {
            let value = try #require(challenge.sealed(key: key))
            #expect(value.utf8.count <= SealedRegistrationChallenge.maximumTextLength)
            let opened = try #require(SealedRegistrationChallenge.open(value, key: key), "\(challenge)")
            #expect(opened == challenge)
            #expect(opened.issuedAt.timeIntervalSince1970 == 1_800_000_000.123 && opened.expiresAt.timeIntervalSince1970 == 1_800_000_060.123)
            #expect(opened.key == Base64URL.encode(Array(1...16)))
            #expect(opened.sealed(key: key) == value)
        }
        // A typical named challenge: 61 bytes (version, flags, two times, the nonce, no contacts, two names of 3, the MAC).
        let typical = try #require(make("ann", "Ann").sealed(key: key).flatMap(Base64URL.decode))
        #expect(typical.count == 61)
    }

    @Test("the account's user handle and id derive from the nonce under the key: stable, 64 bytes and a version 4 UUID, different for another nonce or key")
    func derived() {
        let challenge = make("ann", "Ann")
        let handle = challenge.userHandle(key: key)
        #expect(handle.count == RelyingParty.userHandleLength)
        #expect(handle == make("bo", "Bo").userHandle(key: key), "the names take no part: the nonce does")
        #expect(handle != make("ann", "Ann", nonce: Array(2...17)).userHandle(key: key))
        #expect(handle != challenge.userHandle(key: SymmetricKey(data: [UInt8](repeating: 8, count: 32))))
        let id = challenge.userID(key: key)
        let uuid = UUID(uuidString: id)
        #expect(uuid != nil && id == id.lowercased() && id.count == 36)
        #expect(Array(id)[14] == "4" && "89ab".contains(Array(id)[19]))
        #expect(id == challenge.userID(key: key) && id != make("ann", "Ann", nonce: Array(2...17)).userID(key: key))
    }

    @Test("any one byte changed, any byte cut or added, or another key: it does not open")
    func tamper() throws {
        for challenge in [make("ann", "Ann"), make(nil, nil, [.email])] {
            let bytes = try #require(challenge.sealed(key: key).flatMap(Base64URL.decode))
            for index in bytes.indices {
                var altered = bytes
                altered[index] ^= 0x01
                #expect(SealedRegistrationChallenge.open(Base64URL.encode(altered), key: key) == nil, "byte \(index)")
            }
            #expect(SealedRegistrationChallenge.open(Base64URL.encode(Array(bytes.dropLast())), key: key) == nil)
            #expect(SealedRegistrationChallenge.open(Base64URL.encode(bytes + [0]), key: key) == nil)
            #expect(SealedRegistrationChallenge.open(Base64URL.encode(bytes), key: SymmetricKey(data: [UInt8](repeating: 8, count: 32))) == nil)
        }
    }

    @Test("a valid MAC over an unknown version or flag, a length past the end, text that is not UTF-8, trailing bytes, or a time past the year 9999 does not open it")
    func wellFormedOnly() {
        // Named "ab", no display name, no contacts.
        let body: [UInt8] = [1, 1] + [UInt8](repeating: 0, count: 16) + Array(1...16) + [0] + [0, 2, 0x61, 0x62]
        func sealed(_ body: [UInt8]) -> String { Base64URL.encode(body + SealedRegistrationChallenge.mac(body, key: key)) }
        #expect(SealedRegistrationChallenge.open(sealed(body), key: key)?.username == "ab")  // well formed: it opens
        // One byte changed each: an unknown version; an unknown flag; flag 2 announcing a display name that is not
        // there; the name's length past the end; the contact kinds' length past the end; a name that is not UTF-8.
        let changes: [(index: Int, value: UInt8)] = [(0, 2), (1, 5), (1, 3), (36, 3), (34, 200), (37, 0xff)]
        for change in changes {
            var changed = body
            changed[change.index] = change.value
            #expect(SealedRegistrationChallenge.open(sealed(changed), key: key) == nil, "byte \(change.index) = \(change.value)")
        }
        #expect(SealedRegistrationChallenge.open(sealed(body + [0]), key: key) == nil)
        var late = body
        for index in 10..<18 { late[index] = 0xff }
        #expect(SealedRegistrationChallenge.open(sealed(late), key: key) == nil)
    }

    @Test("a sign-in's sealed challenge does not open as a registration's, nor the other way round; nor random bytes or long text")
    func notSealed() throws {
        let signIn = SealedChallenge(issuedAt: issued, expiresAt: issued.addingTimeInterval(60), nonce: Array(1...16), accountTag: nil).sealed(key: key)
        #expect(SealedRegistrationChallenge.open(signIn, key: key) == nil)
        let registration = try #require(make("ann", "Ann").sealed(key: key))
        #expect(SealedChallenge.open(registration, key: key) == nil)
        #expect(SealedRegistrationChallenge.open(Base64URL.encode([UInt8](repeating: 0x5a, count: 32)), key: key) == nil)
        #expect(SealedRegistrationChallenge.open("not base64url!", key: key) == nil)
        #expect(SealedRegistrationChallenge.open("", key: key) == nil)
        #expect(SealedRegistrationChallenge.open(String(repeating: "A", count: 100_000), key: key) == nil)
    }
}

/// Sealed registration challenges through the server: a new account's options store nothing, and every guarantee a
/// stored challenge gave still holds.
@Suite("Sealed registration challenges: the ceremonies")
struct SealedRegistrationChallengeCeremonyTests {
    @Test("a new account's options store nothing; the account is created with the options' user handle, names and time")
    func optionsStoreNothing() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let issuedAt = server.clock.now
            let options = try await client.call(.get, "/generate-registration-options?username=ann&displayName=Ann%20Lee")
            #expect(options.status == .ok)
            let challenge = try #require(options["challenge"]?.stringValue)
            #expect(Base64URL.decode(challenge)?.first == SealedRegistrationChallenge.version)
            #expect(options["challengeKey"]?.stringValue == challenge)
            #expect(await server.repository.challengeCount() == 0)
            server.clock.advance(5)
            let done = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(done.status == .ok, "\(done.json)")
            let ann = try #require(await server.repository.user(username: "ann"))
            #expect(Base64URL.encode(ann.userHandle) == options["user"]?.objectValue?["id"]?.stringValue)
            #expect(ann.displayName == "Ann Lee" && !ann.isAnonymous)
            #expect(abs(ann.createdAt.timeIntervalSince(issuedAt)) < 0.001)
            #expect(await server.repository.credentials(userID: ann.id).map(\.id) == [device.authenticator.credentialID])
            #expect(await server.repository.challengeCount() == 0)
        }
    }

    @Test("anonymous and sign-up sheet options carry what their account needs, without a challengeKey too")
    func otherShapes() async throws {
        let server = TestServer()
        try await server.run { client in
            let anonymous = try await client.call(.get, "/generate-registration-options")
            let first = try Device(server: server, credentialID: 0xd1)
            let made = try await client.call(.post, "/verify-registration", json: ["cred": first.create(anonymous.json)])
            #expect(made.status == .ok && made["isAnonymous"] == true, "\(made.json)")
            let sheet = try await client.call(.get, "/generate-registration-options?contact=email,phone&displayName=Zoë")
            #expect(sheet["acceptedContacts"] == ["email", "phone"])
            let second = try Device(server: server, credentialID: 0xd2)
            let named = try await client.call(
                .post, "/verify-registration", json: ["username": "zoe@example.com", "cred": second.create(sheet.json)])
            #expect(named.status == .ok, "\(named.json)")
            let zoe = try #require(await server.repository.user(username: "zoe@example.com"))
            #expect(zoe.displayName == "Zoë")
            // The sheet's options accept the kinds they named only.
            let phoneOnly = try await client.call(.get, "/generate-registration-options?contact=phone")
            let third = try Device(server: server, credentialID: 0xd3)
            let refused = try await client.call(.post, "/verify-registration", json: ["username": "bo@example.com", "cred": third.create(phoneOnly.json)])
            #expect(refused.status == .badRequest, "\(refused.json)")
            #expect(await server.repository.user(username: "bo@example.com") == nil)
        }
    }

    @Test("a sealed registration challenge the client changed, one expired, or one answered for other options is refused; no account is made")
    func refused() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            // Changed: the version, the times, the nonce, the name, the MAC; sent without a key, the changed challenge is
            // the only one.
            for index in [0, 5, 20, 37, 60] {
                let answer = try await client.call(.post, "/verify-registration", json: ["cred": device.create(try options.withChallengeBitFlipped(at: index))])
                #expect(answer.status == .badRequest && answer["error"] == "challenge_invalid", "byte \(index): \(answer.json)")
            }
            // With the options' key, a response signed over another challenge is one made for other options.
            let crossed = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(try options.withChallengeBitFlipped(at: 20))])
            #expect(crossed["error"] == "challenge_mismatch", "\(crossed.json)")
            #expect(await server.repository.user(username: "ann") == nil)
            // Expired: 60 seconds after the options.
            let late = try await client.call(.get, "/generate-registration-options?username=bo")
            server.clock.advance(60)
            let expired = try await client.call(.post, "/verify-registration", json: ["challengeKey": late["challengeKey"] ?? nil, "cred": device.create(late.json)])
            #expect(expired["error"] == "challenge_invalid", "\(expired.json)")
            #expect(await server.repository.user(username: "bo") == nil)
            // A sign-in's sealed challenge does not answer a registration.
            let signIn = try await client.call(.get, "/generate-authentication-options")
            var object = signIn.object
            object["user"] = ["id": .string(Base64URL.encode([UInt8](repeating: 9, count: 64))), "name": "cy", "displayName": "Cy"]
            let wrongCeremony = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": signIn["challengeKey"] ?? nil, "cred": device.create(.object(object))])
            #expect(wrongCeremony["error"] == "challenge_invalid", "\(wrongCeremony.json)")
            let unkeyed = try await client.call(.post, "/verify-registration", json: ["cred": device.create(.object(object))])
            #expect(unkeyed["error"] == "challenge_invalid", "\(unkeyed.json)")
        }
    }

    @Test("a sealed registration challenge is used once: the same answer again is refused; a refused attempt spends it too")
    func singleUse() async throws {
        let server = TestServer()
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let device = try Device(server: server, credentialID: 0xe1)
            let answer = device.create(options.json)
            #expect(try await client.call(.post, "/verify-registration", json: ["cred": answer]).status == .ok)
            let replayed = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": answer])
            #expect(replayed["error"] == "challenge_invalid", "\(replayed.json)")
            // A used challenge is refused before anything else is checked: another name, or a response signed over
            // another challenge, gets the same answer.
            let renamed = try await client.call(
                .post, "/verify-registration", json: ["username": "mallory", "challengeKey": options["challengeKey"] ?? nil, "cred": answer])
            #expect(renamed["error"] == "challenge_invalid", "\(renamed.json)")
            let otherChallenge = try Device(server: server, credentialID: 0xe4).create(try options.withChallengeBitFlipped(at: 20))
            let crossed = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": otherChallenge])
            #expect(crossed["error"] == "challenge_invalid", "\(crossed.json)")
            // Another device answering the same options: still the used challenge, not a second account.
            let other = try Device(server: server, credentialID: 0xe2)
            let second = try await client.call(.post, "/verify-registration", json: ["cred": other.create(options.json)])
            #expect(second["error"] == "challenge_invalid", "\(second.json)")

            // Refused (a response from another origin): the ceremony is spent, and its good answer comes too late.
            let bo = try await client.call(.get, "/generate-registration-options?username=bo")
            let third = try Device(server: server, credentialID: 0xe3)
            let wrongOrigin = try await client.call(.post, "/verify-registration", json: ["cred": third.create(bo.json, origin: "https://evil.example")])
            #expect(wrongOrigin["error"] == "origin_mismatch", "\(wrongOrigin.json)")
            let good = try await client.call(.post, "/verify-registration", json: ["cred": third.create(bo.json)])
            #expect(good["error"] == "challenge_invalid", "\(good.json)")
            #expect(await server.repository.user(username: "bo") == nil)
            #expect(await server.repository.users(matching: nil, limit: 10, offset: 0).map(\.username) == ["ann"])
        }
    }

    @Test("two options for one name: the first to verify gets it, the other is username_taken and spent")
    func nameRace() async throws {
        let server = TestServer()
        try await server.run { client in
            let first = try await client.call(.get, "/generate-registration-options?username=ann")
            let second = try await client.call(.get, "/generate-registration-options?username=ann")
            let one = try Device(server: server, credentialID: 0xf1)
            let two = try Device(server: server, credentialID: 0xf2)
            #expect(try await client.call(.post, "/verify-registration", json: ["cred": one.create(first.json)]).status == .ok)
            let taken = try await client.call(.post, "/verify-registration", json: ["cred": two.create(second.json)])
            #expect(taken["error"] == "username_taken", "\(taken.json)")
            // Spent by the refusal: after the account is deleted, the old options do not make it again.
            let ann = try #require(await server.repository.user(username: "ann"))
            try await server.repository.deleteUser(id: ann.id)
            let again = try await client.call(.post, "/verify-registration", json: ["cred": two.create(second.json)])
            #expect(again["error"] == "challenge_invalid", "\(again.json)")
        }
    }

    @Test("a stored new-account registration challenge (options from before challenges were sealed) still completes, once")
    func storedChallengesStillWork() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let now = server.clock.now
            let challenge = Base64URL.encode([UInt8](repeating: 0x41, count: 32))
            let handle = [UInt8](repeating: 0x33, count: 64)
            await server.repository.saveChallenge(
                ChallengeRecord(
                    key: "stored", challenge: challenge, ceremony: .registration, userID: "old-user", username: "ann", displayName: "Ann",
                    userHandle: handle, createdAt: now, expiresAt: now.addingTimeInterval(60)))
            let options: JSONValue = ["challenge": .string(challenge), "user": ["id": .string(Base64URL.encode(handle)), "name": "ann", "displayName": "Ann"]]
            let answer = device.create(options)
            let done = try await client.call(.post, "/verify-registration", json: ["challengeKey": "stored", "cred": answer])
            #expect(done.status == .ok, "\(done.json)")
            #expect(await server.repository.user(username: "ann")?.id == "old-user")
            let again = try await client.call(.post, "/verify-registration", json: ["challengeKey": "stored", "cred": answer])
            #expect(again["error"] == "challenge_invalid", "\(again.json)")
            #expect(await server.repository.challengeCount() == 0)
        }
    }
}
