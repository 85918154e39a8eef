import Crypto
import Foundation
import PasskeyClient
import PasskeyCore
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing
import PasskeyTestSupport

/// The `prf` extension (WebAuthn L3 §10.1.4) in the software authenticator: what apps that derive keys from a passkey
/// see from a browser or Apple's platform.
@Suite("Software authenticator: prf extension")
struct SoftwareAuthenticatorPRFTests {
    typealias RP = TestRelyingParty
    let rp = TestRelyingParty.relyingParty(userVerification: .preferred)

    static let saltA: [UInt8] = Array("salt for the vault key".utf8)
    static let saltB: [UInt8] = Array("another salt".utf8)

    static func values(_ first: [UInt8], _ second: [UInt8]? = nil) -> JSONValue {
        var object: JSONObject = ["first": .string(Base64URL.encode(first))]
        if let second { object["second"] = .string(Base64URL.encode(second)) }
        return .object(object)
    }

    /// Registers with `prf` input `prf` (no `prf` member when nil) and returns the response.
    func register(_ authenticator: SoftwareAuthenticator, user: UInt8 = 1, prf: JSONObject?) async throws(PasskeyError) -> RegistrationResponseJSON {
        var request = RP.registrationRequest(rp, user: user)
        if let prf { request.options.extensions = ["prf": .object(prf)] }
        return try await authenticator.makeCredential(request)
    }

    /// Signs in with `prf` input `prf`; `allow` lists credential IDs for allowCredentials.
    func signIn(_ authenticator: SoftwareAuthenticator, prf: JSONObject?, allow: [[UInt8]] = []) async throws(PasskeyError) -> AuthenticationResponseJSON {
        var request = RP.assertionRequest(rp)
        request.options.allowCredentials = allow.map { PublicKeyCredentialDescriptorJSON(id: Base64URL.encode($0)) }
        if let prf { request.options.extensions = ["prf": .object(prf)] }
        return try await authenticator.getAssertion(request)
    }

    func results(_ extensionResults: JSONObject) -> (first: [UInt8]?, second: [UInt8]?) {
        let results = extensionResults["prf"]?.objectValue?["results"]?.objectValue
        return (results?["first"]?.stringValue.flatMap(Base64URL.decode), results?["second"]?.stringValue.flatMap(Base64URL.decode))
    }

    @Test("a credential created with prf reports it enabled, gives outputs at once with eval, and the same outputs at sign-in")
    func registrationAndSignIn() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        let registered = try await register(authenticator, prf: ["eval": Self.values(Self.saltA)])
        #expect(registered.clientExtensionResults["prf"]?.objectValue?["enabled"] == true)
        let atCreation = try #require(results(registered.clientExtensionResults).first)
        #expect(atCreation.count == 32)
        #expect(try #require(await store.allCredentials().first).prfSecret?.count == 32)

        let signedIn = try await signIn(authenticator, prf: ["eval": Self.values(Self.saltA, Self.saltB)])
        let (first, second) = results(signedIn.clientExtensionResults)
        #expect(first == atCreation, "the same input gives the same output")
        let secondOutput = try #require(second)
        #expect(secondOutput.count == 32 && secondOutput != atCreation)
        let swapped = try await signIn(authenticator, prf: ["eval": Self.values(Self.saltB)])
        #expect(results(swapped.clientExtensionResults).first == secondOutput, "an output depends on its input only, not on its position")
    }

    @Test("outputs follow §10.1.4's salt: HMAC-SHA-256 keyed with the credential's secret over SHA-256(\"WebAuthn PRF\" ‖ 0x00 ‖ input)")
    func knownAnswer() async throws {
        // Randomness pinned: the PRF secret is the third draw (credential ID, private key, then the secret).
        let draws = Draws()
        let authenticator = SoftwareAuthenticator(random: RandomBytes { count in draws.next(count) })
        _ = try await register(authenticator, prf: [:])
        let secret = try #require(await authenticator.store.allCredentials().first?.prfSecret)
        #expect(secret == [UInt8](repeating: 3, count: 32))

        let signedIn = try await signIn(authenticator, prf: ["eval": Self.values(Self.saltA)])
        let salt = Array(SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0x00] + Self.saltA))
        #expect(results(signedIn.clientExtensionResults).first == Array(HMAC<SHA256>.authenticationCode(for: salt, using: SymmetricKey(data: secret))))
    }

    @Test("one PRF per credential, the verified one (§10.1.4): a ceremony without user verification gets no outputs")
    func verificationStates() async throws {
        let authenticator = SoftwareAuthenticator()
        _ = try await register(authenticator, prf: [:])
        let verified = results(try await signIn(authenticator, prf: ["eval": Self.values(Self.saltA)]).clientExtensionResults).first
        #expect(verified?.count == 32)
        var presenceOnly = await authenticator.configuration
        presenceOnly.userVerification = .presenceOnly
        await authenticator.reconfigure(presenceOnly)
        #expect(try await signIn(authenticator, prf: ["eval": Self.values(Self.saltA)]).clientExtensionResults["prf"] == nil)

        // A conditional create (no sheet, no verification) makes a credential with a PRF, without outputs at once;
        // its first verified sign-in gives them.
        let upgraded = SoftwareAuthenticator()
        var request = RP.registrationRequest(rp, user: 3, style: .conditional)
        request.options.extensions = ["prf": ["eval": Self.values(Self.saltA)]]
        let created = try await upgraded.makeCredential(request)
        #expect(created.clientExtensionResults["prf"] == ["enabled": true])
        #expect(results(try await signIn(upgraded, prf: ["eval": Self.values(Self.saltA)]).clientExtensionResults).first?.count == 32)
    }

    @Test("evalByCredential gives the values named for the chosen credential, else eval")
    func evalByCredential() async throws {
        let authenticator = SoftwareAuthenticator()
        let ann = try #require(Base64URL.decode(try await register(authenticator, user: 1, prf: [:]).id))
        let bo = try #require(Base64URL.decode(try await register(authenticator, user: 2, prf: [:]).id))
        let byAnn = results(try await signIn(authenticator, prf: ["eval": Self.values(Self.saltA)], allow: [ann]).clientExtensionResults).first
        let byBo = results(try await signIn(authenticator, prf: ["eval": Self.values(Self.saltA)], allow: [bo]).clientExtensionResults).first
        #expect(byAnn != nil && byAnn != byBo, "each credential has its own secret")

        // Ann's entry names saltB: Ann's output is her saltB output.
        let perCredential: JSONObject = ["eval": Self.values(Self.saltA), "evalByCredential": [Base64URL.encode(ann): Self.values(Self.saltB)]]
        let annB = results(try await signIn(authenticator, prf: perCredential, allow: [ann]).clientExtensionResults).first
        let annDirect = results(try await signIn(authenticator, prf: ["eval": Self.values(Self.saltB)], allow: [ann]).clientExtensionResults).first
        #expect(annB != nil && annB == annDirect)
        // Bo signs in (picked: the most recently used of those allowed) and has no entry: eval's saltA applies.
        _ = try await signIn(authenticator, prf: nil, allow: [bo])
        let boA = results(try await signIn(authenticator, prf: perCredential, allow: [ann, bo]).clientExtensionResults).first
        #expect(boA == byBo)
    }

    @Test("a credential created without prf gives no outputs; a sign-in without prf input gets no prf member")
    func withoutPRF() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        let registered = try await register(authenticator, prf: nil)
        #expect(registered.clientExtensionResults["prf"] == nil)
        #expect(try #require(await store.allCredentials().first).prfSecret == nil)
        #expect(try await signIn(authenticator, prf: ["eval": Self.values(Self.saltA)]).clientExtensionResults["prf"] == nil)

        let other = SoftwareAuthenticator()
        _ = try await register(other, prf: [:])
        #expect(try await signIn(other, prf: nil).clientExtensionResults["prf"] == nil)
    }

    @Test("prf inputs a browser refuses are invalid_options, before anything is created or signed", arguments: [
        ("evalByCredential at registration", true, ["evalByCredential": ["AAAAAAAAAAAAAAAAAAAAAA": values([1])]] as JSONObject),
        ("eval without first", true, ["eval": ["second": "AQ"]] as JSONObject),
        ("first not base64url", false, ["eval": ["first": "*"]] as JSONObject),
        ("eval not an object", false, ["eval": "AQ"] as JSONObject),
        ("evalByCredential without allowCredentials", false, ["evalByCredential": ["AAAAAAAAAAAAAAAAAAAAAA": values([1])]] as JSONObject),
    ])
    func refusedInputs(_ case: (String, Bool, JSONObject)) async throws {
        let (what, atRegistration, prf) = `case`
        let reasons = [
            "evalByCredential at registration": "not allowed when creating", "eval without first": "first must be base64url",
            "first not base64url": "first must be base64url", "eval not an object": "first must be base64url",
            "evalByCredential without allowCredentials": "needs allowCredentials",
        ]
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        if atRegistration {
            let error = await thrownError { () async throws(PasskeyError) in try await register(authenticator, prf: prf) }
            #expect(error?.code == .invalidOptions, "\(what)")
            #expect(error?.reason.contains(reasons[what] ?? "?") == true, "\(what): \(error?.reason ?? "")")
            #expect(await store.allCredentials().isEmpty, "\(what)")
        } else {
            _ = try await register(authenticator, prf: [:])
            let before = try #require(await store.allCredentials().first?.signCount)
            let error = await thrownError { () async throws(PasskeyError) in try await signIn(authenticator, prf: prf) }
            #expect(error?.code == .invalidOptions, "\(what)")
            #expect(error?.reason.contains(reasons[what] ?? "?") == true, "\(what): \(error?.reason ?? "")")
            #expect(await store.allCredentials().first?.signCount == before, "\(what): nothing signed")
        }
    }

    @Test("evalByCredential may only name credentials that allowCredentials lists")
    func evalByCredentialUnlisted() async throws {
        let authenticator = SoftwareAuthenticator()
        let ann = try #require(Base64URL.decode(try await register(authenticator, user: 1, prf: [:]).id))
        let error = await thrownError { () async throws(PasskeyError) in
            try await signIn(authenticator, prf: ["evalByCredential": [Base64URL.encode([9, 9, 9, 9]): Self.values(Self.saltA)]], allow: [ann])
        }
        #expect(error?.code == .invalidOptions)
        #expect(error?.reason.contains("names a credential that allowCredentials does not list") == true)
    }
}

/// Each call returns `count` bytes of the call's number (1, 2, 3, …).
final class Draws: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0

    func next(_ count: Int) -> [UInt8] {
        let call = lock.withLock {
            calls += 1
            return calls
        }
        return [UInt8](repeating: UInt8(truncatingIfNeeded: call), count: count)
    }
}
