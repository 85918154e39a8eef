import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyWire
import Testing

/// What the ceremony API gives clients for the WebAuthn L3 §5.1.10 Signal API: after a verified sign-in the account's
/// passkeys and names, and for a passkey no account holds the signal to forget it, only when that is safe.
@Suite("Signal API answers")
struct SignalAPITests {
    /// Registers `name` with `device` and returns the answer.
    func register(_ name: String, _ device: Device, _ client: some TestClientProtocol) async throws -> [String: JSONValue] {
        let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
        let done = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
        #expect(done.status == .ok, "\(done.json)")
        return Dictionary(uniqueKeysWithValues: (done.json.objectValue ?? [:]).map { ($0.name, $0.value) })
    }

    func signIn(_ device: Device, _ client: some TestClientProtocol, signCount: UInt32, rpID: String? = nil, username: String? = nil)
        async throws -> (status: HTTPResponse.Status, json: JSONValue)
    {
        let options = try await client.call(.get, "/generate-authentication-options" + (username.map { "?username=\($0)" } ?? ""))
        let answer = try await client.call(
            .post, "/verify-authentication",
            json: ["challengeKey": options["challengeKey"] ?? nil, "cred": try device.get(options.json, signCount: signCount, rpID: rpID)])
        return (answer.status, answer.json)
    }

    @Test("a verified sign-in carries the account's passkeys and names, each as the browser's signal method takes it")
    func signedIn() async throws {
        let server = TestServer()
        let ann = try Device(server: server, credentialID: 1)
        try await server.run { client in
            let registered = try await register("ann", ann, client)
            let answer = try await signIn(ann, client, signCount: 1)
            #expect(answer.status == .ok, "\(answer.json)")
            let handle = Base64URL.encode(ann.authenticator.userHandle)
            let credentialID = Base64URL.encode(ann.authenticator.credentialID)
            #expect(registered["credentialId"]?.stringValue == credentialID)
            #expect(
                answer.json.objectValue?["signalAllAcceptedCredentials"]
                    == ["rpId": "localhost", "userId": .string(handle), "allAcceptedCredentialIds": [.string(credentialID)]])
            #expect(
                answer.json.objectValue?["signalCurrentUserDetails"]
                    == ["rpId": "localhost", "userId": .string(handle), "name": "ann", "displayName": "ann"])
        }
    }

    @Test("a passkey deleted from an account that still exists: passkey_deleted_on_server, with the signal to forget it")
    func deletedPasskey() async throws {
        // Also with the unknown-credential signal turned off: the user handle named an account here, so it was ours.
        for signalUnknown in [true, false] {
            let server = TestServer { $0.signalUnknownCredentials = signalUnknown }
            let ann = try Device(server: server, credentialID: 1)
            try await server.run { client in
                let registered = try await register("ann", ann, client)
                try await server.repository.deleteCredential(id: ann.authenticator.credentialID, userID: registered["userId"]?.stringValue ?? "")
                let answer = try await signIn(ann, client, signCount: 1)
                #expect(answer.status == .badRequest && answer.json.objectValue?["error"] == "passkey_deleted_on_server", "\(answer.json)")
                #expect(
                    answer.json.objectValue?["signalUnknownCredential"]
                        == ["rpId": "localhost", "credentialId": .string(Base64URL.encode(ann.authenticator.credentialID))], "\(answer.json)")
            }
        }
    }

    @Test("a passkey no account holds: credential_unknown with the signal, unless another server may hold it or it is not for this RP ID")
    func unknownCredential() async throws {
        let server = TestServer()
        let stranger = try Device(server: server, credentialID: 9)
        stranger.authenticator.userHandle = [1, 2, 3]
        try await server.run { client in
            let answer = try await signIn(stranger, client, signCount: 1)
            #expect(answer.json.objectValue?["error"] == "credential_unknown", "\(answer.json)")
            #expect(
                answer.json.objectValue?["signalUnknownCredential"]
                    == ["rpId": "localhost", "credentialId": .string(Base64URL.encode(stranger.authenticator.credentialID))])

            // Scoped to another RP ID (a page set up for another relying party): this server says nothing about it.
            let elsewhere = try await signIn(stranger, client, signCount: 2, rpID: "example.org")
            #expect(elsewhere.json.objectValue?["error"] == "credential_unknown", "\(elsewhere.json)")
            #expect(elsewhere.json.objectValue?["signalUnknownCredential"] == nil, "\(elsewhere.json)")

            // A credential ID made up for a username without an account is answered as a real passkey with a wrong
            // signature would be: no signal, which would tell the caller the ID was made up.
            let options = try await client.call(.get, "/generate-authentication-options?username=nobody")
            let madeUp = try #require(options["allowCredentials"]?.arrayValue?.first?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode))
            let impostor = try Device(server: server)
            impostor.authenticator.credentialID = madeUp
            let fake = try await client.call(
                .post, "/verify-authentication", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": try impostor.get(options.json)])
            #expect(fake.status == .badRequest && fake["error"] != "credential_unknown", "\(fake.json)")
            #expect(fake.json.objectValue?["signalUnknownCredential"] == nil, "\(fake.json)")
        }

        // Another server with its own database shares the RP ID: a passkey unknown here may be one of its own.
        let shared = TestServer { $0.signalUnknownCredentials = false }
        let visitor = try Device(server: shared, credentialID: 9)
        visitor.authenticator.userHandle = [1, 2, 3]
        try await shared.run { client in
            let answer = try await signIn(visitor, client, signCount: 1)
            #expect(answer.json.objectValue?["error"] == "credential_unknown", "\(answer.json)")
            #expect(answer.json.objectValue?["signalUnknownCredential"] == nil, "\(answer.json)")
        }
    }
}
