import Foundation
import PasskeyAPI
import PasskeyClient
import PasskeyServer
import PasskeySoftwareAuthenticator
import PasskeyStorage
import PasskeyWire
import Testing
import PasskeyTestSupport

/// `PasskeyAuthClient.createAccount` (iOS 26's sign-up sheet, emulated by the software authenticator) against the real
/// server routes.
@Suite("Account creation through the SDK against the real server routes")
struct AccountCreationFlowTests {
    @Test("the sheet's contact and name name the new account; the passkey then signs in by that contact")
    func createAndSignIn() async throws {
        let server = FlowServer()
        let events = Collector<PasskeyClientEvent>()
        let authenticator = server.authenticator {
            $0.accountContacts = [AccountContact(.phone, "+44 20 7946 0000"), AccountContact(.email, "ann@example.com")]
            $0.accountName = "Ann Lee"
        }
        #expect(await authenticator.capabilities().supportsAccountCreation)
        let created = try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator, onEvent: { events.append($0) })
            let created = try await client.createAccount(acceptedContacts: [.email])
            #expect(created.verified && created.username == "ann@example.com" && !created.isAnonymous)
            let signedIn = try await client.authenticate(username: "ann@example.com")
            #expect(signedIn.userId == created.userId && signedIn.credentialId == created.credentialId)
            return created
        }
        #expect(await server.repository.user(username: "ann@example.com")?.displayName == "Ann Lee")
        // The device keeps the passkey under the contact, as the system sheet stores it.
        let stored = try #require(try await authenticator.store.allCredentials().first)
        #expect(stored.userName == "ann@example.com" && stored.userDisplayName == "Ann Lee")
        #expect(events.values.first == .registrationStarted(username: nil))
        #expect(events.values.dropFirst().first == .registrationSucceeded(userId: created.userId, credentialId: created.credentialId, isAnonymous: false))
    }

    @Test("a phone number is stored as + and its digits; without requestName no name is sent")
    func phoneWithoutName() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator {
            $0.accountContacts = [AccountContact(.phone, "+1 (415) 555-0100")]
            $0.accountName = "Bo"
        }
        try await server.run { transport in
            let created = try await PasskeyAuthClient(transport: transport, authenticator: authenticator)
                .createAccount(acceptedContacts: [.email, .phone], requestName: false)
            #expect(created.username == "+14155550100")
        }
        #expect(await server.repository.user(username: "+14155550100")?.displayName == "+14155550100", "the contact as stored, without a name")
    }

    @Test("a contact another account has: username_taken, and the device forgets the passkey it made")
    func duplicateContact() async throws {
        let server = FlowServer()
        try await server.run { transport in
            _ = try await PasskeyAuthClient(transport: transport, authenticator: server.authenticator()).register(username: "cy@example.com")
            let second = server.authenticator { $0.accountContacts = [AccountContact(.email, "CY@example.com")] }
            let error = await #expect(throws: PasskeyError.self) {
                try await PasskeyAuthClient(transport: transport, authenticator: second).createAccount()
            }
            #expect(error?.server?.code == .usernameTaken && error?.server?.httpStatus == 409)
            #expect(try await second.store.allCredentials().isEmpty)
        }
    }

    @Test("without a sign-up sheet: not_supported before any request; no contact of an accepted kind: cancelled")
    func unsupported() async throws {
        let server = FlowServer()
        try await server.run { transport in
            let plain = server.authenticator()
            #expect(await !plain.capabilities().supportsAccountCreation)
            let refused = await #expect(throws: PasskeyError.self) {
                try await PasskeyAuthClient(transport: transport, authenticator: plain).createAccount()
            }
            #expect(refused?.code == .notSupported)
            let phoneOnly = server.authenticator { $0.accountContacts = [AccountContact(.phone, "+14155550100")] }
            let cancelled = await #expect(throws: PasskeyError.self) {
                try await PasskeyAuthClient(transport: transport, authenticator: phoneOnly).createAccount(acceptedContacts: [.email])
            }
            #expect(cancelled?.code == .cancelled)
        }
        #expect(await server.repository.user(username: "+14155550100") == nil)
    }
}
