import PasskeyClient
import PasskeyCore
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing
import PasskeyTestSupport

/// The `largeBlob` extension (WebAuthn L3 §10.1.5) in the software authenticator: what an app that keeps a certificate
/// or a wrapped key with a passkey sees from a browser or Apple's platform.
@Suite("Software authenticator: largeBlob extension")
struct SoftwareAuthenticatorLargeBlobTests {
    typealias RP = TestRelyingParty
    let rp = TestRelyingParty.relyingParty()

    /// Registers user `user` with `largeBlob` input `input` (no member when nil); returns the response and the credential ID.
    func register(
        _ authenticator: SoftwareAuthenticator, user: UInt8 = 1, _ input: JSONObject?
    ) async throws(PasskeyError) -> (response: RegistrationResponseJSON, id: [UInt8]) {
        var request = RP.registrationRequest(rp, user: user)
        if let input { request.options.extensions = ["largeBlob": .object(input)] }
        let response = try await authenticator.makeCredential(request)
        return (response, Base64URL.decode(response.id) ?? [])
    }

    /// Signs in with `largeBlob` input `input`, allowing `allow`; the assertion is verified by the relying party
    /// against `record` when one is given, so the extension never costs the sign-in its validity.
    func signIn(
        _ authenticator: SoftwareAuthenticator, _ input: JSONObject?, allow: [[UInt8]] = []
    ) async throws(PasskeyError) -> AuthenticationResponseJSON {
        var request = RP.assertionRequest(rp)
        request.options.allowCredentials = allow.map { PublicKeyCredentialDescriptorJSON(id: Base64URL.encode($0)) }
        if let input { request.options.extensions = ["largeBlob": .object(input)] }
        return try await authenticator.getAssertion(request)
    }

    func output(_ results: JSONObject) -> JSONObject? { results["largeBlob"]?.objectValue }

    @Test("a credential created with largeBlob stores a blob at one sign-in and returns it at the next; a read before any write has no blob")
    func writeThenRead() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        let request = RP.registrationRequest(rp)
        var withExtension = request
        withExtension.options.extensions = ["largeBlob": ["support": "preferred"]]
        let registered = try await authenticator.makeCredential(withExtension)
        #expect(output(registered.clientExtensionResults) == ["supported": true])
        let record = try rp.verifyRegistration(registered, expectedChallenge: withExtension.options.challenge)
            .credentialRecord(userHandle: RP.userHandle(1))
        let id = record.id

        // §10.1.5: the output is present without `blob` when there is nothing to read.
        #expect(output(try await signIn(authenticator, ["read": true]).clientExtensionResults) == [:])

        let certificate = Array("a certificate over the credential's public key".utf8)
        var write = RP.assertionRequest(rp)
        write.options.allowCredentials = [PublicKeyCredentialDescriptorJSON(id: Base64URL.encode(id))]
        write.options.extensions = ["largeBlob": ["write": .string(Base64URL.encode(certificate))]]
        let written = try await authenticator.getAssertion(write)
        #expect(output(written.clientExtensionResults) == ["written": true])
        let verified = try rp.verifyAuthentication(
            written, expectedChallenge: write.options.challenge, credential: record, expectedUser: .discoverable)
        #expect(verified.newSignCount == 2, "the write rides on a valid sign-in, after the read's")

        let read = try await signIn(authenticator, ["read": true])
        #expect(output(read.clientExtensionResults) == ["blob": .string(Base64URL.encode(certificate))])
        #expect(await store.allCredentials().first?.largeBlob == certificate)

        // A later write replaces the blob; an empty one leaves an empty blob.
        #expect(output(try await signIn(authenticator, ["write": "AQID"], allow: [id]).clientExtensionResults) == ["written": true])
        #expect(output(try await signIn(authenticator, ["read": true]).clientExtensionResults) == ["blob": "AQID"])
        #expect(output(try await signIn(authenticator, ["write": ""], allow: [id]).clientExtensionResults) == ["written": true])
        #expect(output(try await signIn(authenticator, ["read": true]).clientExtensionResults) == ["blob": ""])
        // No input, no output.
        #expect(try await signIn(authenticator, nil).clientExtensionResults["largeBlob"] == nil)
    }

    @Test("written is false, and the blob unchanged, for a credential created without largeBlob and for a blob over capacity")
    func writeRefusedByAuthenticator() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(configuration: .init(largeBlobCapacity: 4), store: store)
        let plain = try await register(authenticator, user: 1, nil)
        #expect(plain.response.clientExtensionResults["largeBlob"] == nil)
        #expect(output(try await signIn(authenticator, ["write": "AQID"], allow: [plain.id]).clientExtensionResults) == ["written": false])
        #expect(output(try await signIn(authenticator, ["read": true], allow: [plain.id]).clientExtensionResults) == [:])

        let capable = try await register(authenticator, user: 2, [:])
        #expect(output(capable.response.clientExtensionResults) == ["supported": true], "an empty input means support: preferred")
        #expect(output(try await signIn(authenticator, ["write": "AQIDBA"], allow: [capable.id]).clientExtensionResults) == ["written": true])
        #expect(output(try await signIn(authenticator, ["write": "AQIDBAU"], allow: [capable.id]).clientExtensionResults) == ["written": false])
        let stored = await store.allCredentials()
        #expect(stored.first { $0.id == capable.id }?.largeBlob == [1, 2, 3, 4], "five bytes exceed the capacity of four")
        #expect(stored.first { $0.id == plain.id }?.largeBlob == nil)
    }

    @Test("an authenticator without large-blob storage reports supported: false, and a registration that requires it fails before any sheet")
    func authenticatorWithoutSupport() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(configuration: .init(largeBlobCapacity: nil), store: store)
        let preferred = try await register(authenticator, user: 1, ["support": "preferred"])
        #expect(output(preferred.response.clientExtensionResults) == ["supported": false])
        #expect(await store.allCredentials().first?.largeBlobSupported == false)

        let error = await thrownError { () async throws(PasskeyError) in _ = try await register(authenticator, user: 2, ["support": "required"]) }
        #expect(error?.code == .notSupported)
        #expect(error?.reason.contains("large-blob storage") == true, "\(error?.reason ?? "")")
        #expect(await store.allCredentials().count == 1, "nothing created")
    }

    @Test("inputs are read as a browser converts them: largeBlob null is an empty object, read any value by ECMAScript's truth")
    func browserConversions() async throws {
        let authenticator = SoftwareAuthenticator()
        var request = RP.registrationRequest(rp)
        request.options.extensions = ["largeBlob": .null]
        let registered = try await authenticator.makeCredential(request)
        #expect(output(registered.clientExtensionResults) == ["supported": true], "null is {}: support preferred")
        let id = try #require(Base64URL.decode(registered.id))
        #expect(output(try await signIn(authenticator, ["write": "AQID"], allow: [id]).clientExtensionResults) == ["written": true])
        for truthy: JSONValue in ["yes", 1, true, .object([:])] {
            #expect(output(try await signIn(authenticator, ["read": truthy]).clientExtensionResults) == ["blob": "AQID"], "\(truthy)")
        }
        for falsy: JSONValue in ["", 0, false, .null] {
            #expect(try await signIn(authenticator, ["read": falsy]).clientExtensionResults["largeBlob"] == nil, "\(falsy)")
        }
        var notObject = RP.registrationRequest(rp, user: 2)
        notObject.options.extensions = ["largeBlob": 5]
        let error = await thrownError { () async throws(PasskeyError) in _ = try await authenticator.makeCredential(notObject) }
        #expect(error?.code == .invalidOptions && error?.reason == "extensions.largeBlob is not an object")
    }

    @Test("largeBlob inputs a browser refuses (§10.1.5) are invalid_options, before anything is created or signed", arguments: [
        ("read at registration", true, ["read": true] as JSONObject, "for sign-in"),
        ("write at registration", true, ["write": "AQID"] as JSONObject, "for sign-in"),
        ("support at sign-in", false, ["support": "required"] as JSONObject, "for creating a credential"),
        ("read and write", false, ["read": true, "write": "AQID"] as JSONObject, "cannot both read and write"),
        ("write without exactly one allowed credential", false, ["write": "AQID"] as JSONObject, "exactly one credential, not 0"),
        ("write not base64url", false, ["write": "*"] as JSONObject, "not base64url"),
        ("write null", false, ["write": .null] as JSONObject, "not base64url"),
        ("read null and write", false, ["read": .null, "write": "AQID"] as JSONObject, "cannot both read and write"),
    ])
    func refusedInputs(_ case: (String, Bool, JSONObject, String)) async throws {
        let (what, atRegistration, input, reason) = `case`
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        if atRegistration {
            let error = await thrownError { () async throws(PasskeyError) in _ = try await register(authenticator, input) }
            #expect(error?.code == .invalidOptions, "\(what)")
            #expect(error?.reason.contains(reason) == true, "\(what): \(error?.reason ?? "")")
            #expect(await store.allCredentials().isEmpty, "\(what)")
        } else {
            let id = try await register(authenticator, [:]).id
            // Only the write case is refused for its allowCredentials: the others name the one credential.
            let allow = what.hasPrefix("write without") ? [] : [id]
            let error = await thrownError { () async throws(PasskeyError) in _ = try await signIn(authenticator, input, allow: allow) }
            #expect(error?.code == .invalidOptions, "\(what)")
            #expect(error?.reason.contains(reason) == true, "\(what): \(error?.reason ?? "")")
            let stored = try #require(await store.allCredentials().first)
            #expect(stored.signCount == 0 && stored.largeBlob == nil, "\(what): nothing signed or written")
        }
    }
}
