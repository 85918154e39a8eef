import Foundation
import HummingbirdTesting
@testable import PasskeyServer
import PasskeyStorage
import PasskeyWire
import Testing

/// Registration options for the system's sign-up sheet (Apple's account creation, iOS 26): no username up front; the
/// person picks an email address or phone number in the sheet, and the verification names the new account by it.
@Suite("Account creation: an account named by the contact picked in the sign-up sheet")
struct AccountCreationTests {
    @Test("options with contact have no username; the verified contact names the account, which then signs in by it")
    func namedByContact() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?contact=email,phone")
            #expect(options.status == .ok, "\(options.json)")
            #expect(options["acceptedContacts"] == ["email", "phone"])
            #expect(options["user"]?.objectValue?["displayName"] == "New account")
            let registered = try await client.call(
                .post, "/verify-registration",
                json: ["username": "  ann@example.com ", "displayName": "Ann Lee", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok, "\(registered.json)")
            #expect(registered["username"] == "ann@example.com" && registered["isAnonymous"] == false)

            let request = try await client.call(.get, "/generate-authentication-options?username=ANN@example.com")
            #expect(request["allowCredentials"]?.arrayValue?.first?.objectValue?["id"] == registered["credentialId"])
            let signedIn = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(request.json, signCount: 1), "challengeKey": request["challengeKey"] ?? nil])
            #expect(signedIn["username"] == "ann@example.com", "\(signedIn.json)")
            #expect(signedIn["user"]?.objectValue?["displayName"] == "Ann Lee")
        }
        let stored = try await server.repository.user(username: "ann@example.com")
        #expect(stored?.displayName == "Ann Lee" && stored?.isAnonymous == false)
    }

    @Test("a phone number is stored as + and its digits")
    func phoneNumber() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.post, "/generate-registration-options", json: ["contact": "phone"])
            #expect(options["acceptedContacts"] == ["phone"], "\(options.json)")
            let registered = try await client.call(
                .post, "/verify-registration",
                json: ["username": "+44 (20) 7946-0000", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok, "\(registered.json)")
            #expect(registered["username"] == "+442079460000")
        }
    }

    @Test("a contact another account has is 409 username_taken, and the options are spent")
    func duplicateContact() async throws {
        let server = TestServer()
        let first = try Device(server: server, credentialID: 0xc1)
        let second = try Device(server: server, credentialID: 0xc2)
        try await server.run { client in
            let named = try await client.call(.get, "/generate-registration-options?username=carol@example.com")
            let carol = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": named["challengeKey"] ?? nil, "cred": first.create(named.json)])
            #expect(carol.status == .ok, "\(carol.json)")

            let options = try await client.call(.get, "/generate-registration-options?contact=email")
            let body: JSONValue = ["username": "Carol@Example.com", "challengeKey": options["challengeKey"] ?? nil, "cred": second.create(options.json)]
            let taken = try await client.call(.post, "/verify-registration", json: body)
            #expect(taken.status == .conflict && taken["error"] == "username_taken", "\(taken.json)")
            let again = try await client.call(.post, "/verify-registration", json: body)
            #expect(again.status == .badRequest && again["error"] == "challenge_invalid", "\(again.json)")
        }
        #expect(await server.repository.credential(id: second.authenticator.credentialID) == nil)
    }

    @Test("options older than their 60 seconds are 400 challenge_invalid")
    func expiredOptions() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?contact=email")
            server.clock.advance(61)
            let late = try await client.call(
                .post, "/verify-registration",
                json: ["username": "dan@example.com", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(late.status == .badRequest && late["error"] == "challenge_invalid", "\(late.json)")
        }
        #expect(try await server.repository.user(username: "dan@example.com") == nil)
    }

    @Test(
        "a contact of the wrong form or kind, or none, is refused with its code and creates nothing",
        arguments: [
            ("email", "not-an-address@", "contact_invalid"), ("email", "ann@localhost", "contact_invalid"),
            ("email", "ann smith@example.com", "contact_invalid"), ("email", "+14155550100", "contact_invalid"),
            ("phone", "ann@example.com", "contact_invalid"), ("phone", "4155550100", "contact_invalid"),
            ("phone", "+1 415", "contact_invalid"), ("phone", "+1415555010012345", "contact_invalid"),
            ("email,phone", "", "contact_required"), ("email", "ann\u{200B}@example.com", "username_invalid"),
        ])
    func refusedContact(kinds: String, contact: String, code: String) async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?contact=\(kinds)")
            #expect(options.status == .ok, "\(options.json)")
            let refused = try await client.call(
                .post, "/verify-registration",
                json: ["username": .string(contact), "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(refused.status == .badRequest && refused["error"] == .string(code), "\(contact): \(refused.json)")
        }
        #expect(await server.repository.credential(id: device.authenticator.credentialID) == nil)
    }

    @Test("contact takes email, phone or both, and no username beside it")
    func optionsRefused() async throws {
        let server = TestServer()
        try await server.run { client in
            for query in ["contact=fax", "contact=email,", "contact=", "contact=email&username=ann"] {
                let refused = try await client.call(.get, "/generate-registration-options?\(query)")
                #expect(refused.status == .badRequest && refused["error"] == "contact_kind_invalid", "\(query): \(refused.json)")
            }
            let plain = try await client.call(.get, "/generate-registration-options?username=ann")
            #expect(plain["acceptedContacts"] == nil)
        }
    }
}
