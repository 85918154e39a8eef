import Foundation
import HummingbirdTesting
import PasskeyCore
@testable import PasskeyServer
@testable import PasskeyRelyingParty
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire
import PasskeyServerTestSupport
import Testing

/// Sign-in answers do not tell an attacker what is stored before the signature verified (issue: account enumeration
/// through `/verify-authentication`, and a stored-state oracle). Written as an attacker sends them, over HTTP against the
/// real router: any key of their own, any credential ID they hold.
@Suite("Sign-in answers reveal nothing stored before the signature verified")
struct SignInOracleTests {
    /// An assertion for `credentialID` over `options`' challenge, signed with a key of the attacker's.
    static func forged(
        _ options: JSONValue, credentialID: [UInt8], userHandle: [UInt8]?? = .none, flags: AuthenticatorData.Flags = [.userPresent, .userVerified],
        server: TestServer, signCount: UInt32 = 1
    ) throws -> JSONValue {
        var attacker = try TestAuthenticator()
        attacker.credentialID = credentialID
        let challenge = options.objectValue?["challenge"]?.stringValue ?? ""
        let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: server.origin)
        let authData = attacker.authData(for: "get") {
            $0.rpID = server.configuration.rpID
            $0.flags = flags
            $0.signCount = signCount
        }.build()
        return try attacker.assertion(authData: authData, clientData: clientData, userHandle: userHandle).json
    }

    /// The parts of an answer an attacker compares.
    static func shape(_ response: JSONResponse) -> String {
        "\(response.status.code) \(response["error"]?.stringValue ?? "-") \(response["message"]?.stringValue ?? "-")"
    }

    @Test("the first listed credential of an account and of a name without one: the same answer, with or without a user handle")
    func noEnumerationThroughVerify() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let registered = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok, "\(registered.json)")

            for userHandle: [UInt8]?? in [.some(nil), .some([UInt8](repeating: 0x42, count: 64))] {
                var answers: [String] = []
                for name in ["ann", "nobody-here"] {
                    let request = try await client.call(.get, "/generate-authentication-options?username=\(name)")
                    let first = try #require(request["allowCredentials"]?.arrayValue?.first?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode))
                    let answer = try await client.call(
                        .post, "/verify-authentication",
                        json: [
                            "cred": try Self.forged(request.json, credentialID: first, userHandle: userHandle, server: server),
                            "challengeKey": request["challengeKey"] ?? nil,
                        ])
                    answers.append(Self.shape(answer))
                }
                #expect(answers[0] == answers[1], "\(answers)")
                #expect(answers[0].hasPrefix("400 signature_invalid"), "\(answers)")
            }
        }
    }

    @Test("a passkey's backup eligibility and counter are not told to someone signing with another key")
    func noStoredStateOracle() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            // Device-bound: BE clear at registration.
            let options = try await client.call(.get, "/generate-registration-options?username=bea")
            let registered = try await client.call(
                .post, "/verify-registration",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json, flags: [.userPresent, .userVerified])])
            #expect(registered.status == .ok, "\(registered.json)")
            let id = device.authenticator.credentialID
            let signedIn = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(
                try await client.call(.get, "/generate-authentication-options").json, signCount: 5)])
            #expect(signedIn.status == .ok, "\(signedIn.json)")

            var answers: [String] = []
            // BE as stored and BE changed; a counter above and below the stored 5; usernameless and with the username.
            for (flags, count, query) in [
                (AuthenticatorData.Flags([.userPresent, .userVerified]), UInt32(9), ""),
                ([.userPresent, .userVerified, .backupEligible], 9, ""), ([.userPresent, .userVerified], 1, ""),
                ([.userPresent, .userVerified, .backupEligible, .backupState], 1, "?username=bea"),
            ] {
                let request = try await client.call(.get, "/generate-authentication-options\(query)")
                let answer = try await client.call(
                    .post, "/verify-authentication",
                    json: [
                        "cred": try Self.forged(request.json, credentialID: id, userHandle: .some(device.authenticator.userHandle), flags: flags,
                            server: server, signCount: count),
                        "challengeKey": request["challengeKey"] ?? nil,
                    ])
                answers.append(Self.shape(answer))
            }
            #expect(Set(answers).count == 1 && answers[0].hasPrefix("400 signature_invalid"), "\(answers)")

            // The passkey's holder still gets the precise answer once its signature verified.
            let changed = try await client.call(.get, "/generate-authentication-options")
            let holder = try await client.call(
                .post, "/verify-authentication",
                json: ["cred": try device.get(changed.json, signCount: 6, flags: [.userPresent, .userVerified, .backupEligible])])
            #expect(holder["error"] == "backup_eligibility_changed", "\(holder.json)")
        }
    }

    @Test("another account's real credential ID, against options for a username: refused for what the client was told")
    func otherAccountsCredential() async throws {
        let server = TestServer()
        let ann = try Device(server: server, credentialID: 0xa1)
        let bob = try Device(server: server, credentialID: 0xb1)
        try await server.run { client in
            for (name, device) in [("ann", ann), ("bob", bob)] {
                let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
                let registered = try await client.call(
                    .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
                #expect(registered.status == .ok, "\(registered.json)")
            }
            var answers: [String] = []
            // Bob's real ID and an ID nobody has, each against options for ann: neither is in ann's list.
            for id in [bob.authenticator.credentialID, [UInt8](repeating: 0xee, count: 32)] {
                let request = try await client.call(.get, "/generate-authentication-options?username=ann")
                let answer = try await client.call(
                    .post, "/verify-authentication",
                    json: ["cred": try Self.forged(request.json, credentialID: id, server: server), "challengeKey": request["challengeKey"] ?? nil])
                answers.append(Self.shape(answer))
            }
            #expect(answers[0] == answers[1] && answers[0].hasPrefix("400 credential_not_allowed"), "\(answers)")
        }
    }

    @Test("a made-up credential ID is recognised by its tag; a real or random one is not")
    func fakeIDsCarryATag() async throws {
        let server = TestServer()
        let service = CeremonyService(repository: server.repository, relyingParty: RelyingParty(id: "localhost", origins: ["http://localhost:8080"]),
            configuration: server.configuration.ceremonies)
        let fakes = try await service.fakeCredentials(for: "nobody")
        #expect(!fakes.isEmpty)
        for fake in fakes { #expect(await service.isFakeCredentialID(fake.id)) }
        var altered = try #require(fakes.first?.id)
        altered[0] ^= 1
        #expect(await !service.isFakeCredentialID(altered))
        #expect(await !service.isFakeCredentialID([UInt8](repeating: 0xc1, count: 32)))
        #expect(try await service.fakeCredentials(for: "NOBODY").map(\.id) == fakes.map(\.id), "stable for a name")
    }
}
