import Foundation
import HummingbirdTesting
@testable import PasskeyServer
import PasskeyStorage
import PasskeyWire
import PasskeyServerTestSupport
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
            let registered = try await client.signUp(options, device, contact: "  ann@example.com ", displayName: "Ann Lee")
            #expect(registered.status == .ok, "\(registered.json)")
            #expect(registered["username"] == "ann@example.com" && registered["isAnonymous"] == false)

            let request = try await client.call(.get, "/generate-authentication-options?username=ANN@example.com")
            #expect(request["allowCredentials"]?.arrayValue?.first?.objectValue?["id"] == registered["credentialId"])
            let signedIn = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(request.json, signCount: 1), "challengeKey": request["challengeKey"] ?? nil])
            #expect(signedIn["username"] == "ann@example.com", "\(signedIn.json)")
            #expect(signedIn["user"]?.objectValue?["displayName"] == "Ann Lee")
        }
        let stored = await server.repository.user(username: "ann@example.com")
        #expect(stored?.displayName == "Ann Lee" && stored?.isAnonymous == false)
    }

    @Test("a phone number is stored as + and its digits")
    func phoneNumber() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.post, "/generate-registration-options", json: ["contact": "phone"])
            #expect(options["acceptedContacts"] == ["phone"], "\(options.json)")
            let registered = try await client.signUp(options, device, contact: "+44 (20) 7946-0000")
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
            let late = try await client.signUp(options, device, contact: "dan@example.com")
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
            // Look-alikes of ann@example.com: Cyrillic а, fullwidth letters, a one-dot leader, a fullwidth @.
            ("email", "\u{0430}nn@example.com", "contact_invalid"), ("email", "ann@ex\u{0430}mple.com", "contact_invalid"),
            ("email", "\u{FF41}nn@example.com", "contact_invalid"), ("email", "ann\u{2024}lee@example.com", "contact_invalid"),
            ("email", "x\u{FF20}bank.com@evil.io", "contact_invalid"), ("email", "user@b\u{00FC}cher.de", "contact_invalid"),
            ("email", "a@1.2.3.4", "contact_invalid"), ("email", "a@b.c", "contact_invalid"), ("email", "ann", "contact_invalid"),
            ("phone", "+0442079460000", "contact_invalid"), ("phone", "+\u{FF11}4155550100", "contact_invalid"),
            ("phone", "+\u{0661}4155550100", "contact_invalid"),
        ])
    func refusedContact(kinds: String, contact: String, code: String) async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?contact=\(kinds)")
            #expect(options.status == .ok, "\(options.json)")
            let refused = try await client.signUp(options, device, contact: .string(contact))
            #expect(refused.status == .badRequest && refused["error"] == .string(code), "\(contact): \(refused.json)")
        }
        #expect(await server.repository.credential(id: device.authenticator.credentialID) == nil)
    }

    @Test("contact takes email, phone or both, and no username beside it")
    func optionsRefused() async throws {
        let server = TestServer()
        try await server.run { client in
            for query in ["contact=fax", "contact=email,", "contact=", "contact=EMAIL", "contact=email,email", "contact=%20email"] {
                let refused = try await client.call(.get, "/generate-registration-options?\(query)")
                #expect(refused.status == .badRequest && refused["error"] == "contact_kind_invalid", "\(query): \(refused.json)")
            }
            let withUsername = try await client.call(.get, "/generate-registration-options?contact=email&username=ann")
            #expect(withUsername.status == .badRequest && withUsername["error"] == "field_invalid", "\(withUsername.json)")
            let both = try await client.call(.get, "/generate-registration-options?contact=phone,email")
            #expect(both["acceptedContacts"] == ["phone", "email"], "\(both.json)")
            let plain = try await client.call(.get, "/generate-registration-options?username=ann")
            #expect(plain["acceptedContacts"] == nil)
        }
    }

    @Test("a seven-digit number is a phone number; one number names one account however it is spaced, also as a plain username")
    func phoneNumbersCompareAsDigits() async throws {
        let server = TestServer()
        let first = try Device(server: server, credentialID: 0xc1)
        let second = try Device(server: server, credentialID: 0xc2)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?contact=phone")
            let niue = try await client.signUp(options, first, contact: "+683 1234")
            #expect(niue.status == .ok && niue["username"] == "+6831234", "\(niue.json)")
            // Signing in with the number as it was typed finds the account.
            let request = try await client.call(.get, "/generate-authentication-options?username=%2B683%201234")
            #expect(request["allowCredentials"]?.arrayValue?.first?.objectValue?["id"] == niue["credentialId"], "\(request.json)")
            // A plain username that is the same number, spaced otherwise, is that account's name.
            let plain = try await client.call(.get, "/generate-registration-options?username=%2B683-12-34")
            #expect(plain.status == .conflict && plain["error"] == "username_taken", "\(plain.json)")
            let other = try await client.call(.get, "/generate-registration-options?username=%2B1%20(415)%20555-0100")
            #expect(other["user"]?.objectValue?["name"] == "+14155550100", "\(other.json)")
            let registered = try await client.signUp(other, second, contact: "+1 415 555 0100")
            #expect(registered.status == .ok && registered["username"] == "+14155550100", "\(registered.json)")
        }
    }

    @Test("a display name given with the options is the account's when the sheet gives none; the sheet's wins")
    func displayNameFromOptions() async throws {
        let server = TestServer()
        let first = try Device(server: server, credentialID: 0xc1)
        let second = try Device(server: server, credentialID: 0xc2)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?contact=email&displayName=Zed")
            #expect(options["user"]?.objectValue?["displayName"] == "Zed")
            let zed = try await client.signUp(options, first, contact: "zed@example.com")
            #expect(zed.status == .ok, "\(zed.json)")
            let again = try await client.call(.get, "/generate-registration-options?contact=email&displayName=Zed")
            let named = try await client.signUp(again, second, contact: "yan@example.com", displayName: "Yan")
            #expect(named.status == .ok, "\(named.json)")
        }
        #expect(try await server.repository.user(username: "zed@example.com")?.displayName == "Zed")
        #expect(try await server.repository.user(username: "yan@example.com")?.displayName == "Yan")
    }

    @Test("a response made for other options says challenge_mismatch before any contact rule; the app-backend shapes take contact too")
    func orderAndAPIShapes() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let contactOptions = try await client.call(.get, "/generate-registration-options?contact=email")
            let ordinary = try await client.call(.get, "/generate-registration-options")
            let crossed = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": contactOptions["challengeKey"] ?? nil, "cred": device.create(ordinary.json)])
            #expect(crossed.status == .badRequest && crossed["error"] == "challenge_mismatch", "\(crossed.json)")

            let guide = try await client.call(.post, "/api/registration-challenge", json: ["contact": "email", "displayName": "Ann"])
            #expect(guide.status == .ok && guide["acceptedContacts"] == ["email"] && guide["challengeKey"] == nil, "\(guide.json)")
            let bogus = try await client.call(.post, "/api/start-registration", json: ["contact": "bogus"])
            #expect(bogus.status == .badRequest && bogus["error"] == "contact_kind_invalid", "\(bogus.json)")
            let completed = try await client.call(
                .post, "/api/complete-registration", json: ["username": "ann@example.com", "credential": device.create(guide.json)])
            #expect(completed.status == .ok && completed["username"] == "ann@example.com", "\(completed.json)")
            #expect(completed["displayName"] == "Ann", "\(completed.json)")
        }
    }
}

extension TestClientProtocol {
    /// Completes sign-up-sheet `options` with `device`'s new passkey, named by `contact` (and `displayName`).
    func signUp(_ options: JSONResponse, _ device: Device, contact: JSONValue, displayName: String? = nil) async throws -> JSONResponse {
        var body: JSONObject = ["username": contact, "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)]
        if let displayName { body["displayName"] = .string(displayName) }
        return try await call(.post, "/verify-registration", json: .object(body))
    }
}
