import Foundation
import PasskeyClient
import PasskeyDiagnostics
import PasskeyWire
import Testing

/// A credential as AuthenticationServices hands it over: raw bytes, plus what the adapter reads from Apple's types.
struct RecordedRegistration: AppleCredentialRegistrationValues {
    var rawClientDataJSON: Data
    var credentialID: Data
    var rawAttestationObject: Data?
    var webAuthnAttachment: AuthenticatorAttachment?
    var webAuthnTransports: [AuthenticatorTransport]
    var extensionOutputs = AppleRegistrationExtensionOutputs()
}

struct RecordedAssertion: AppleCredentialAssertionValues {
    var rawClientDataJSON: Data
    var credentialID: Data
    var webAuthnAuthenticatorData: Data?
    var webAuthnSignature: Data?
    var webAuthnUserHandle: Data?
    var webAuthnAttachment: AuthenticatorAttachment?
    var extensionOutputs = AppleAssertionExtensionOutputs()
}

enum RecordedFixture {
    static func url(_ path: String) throws -> URL {
        let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return base.appendingPathComponent(path)
    }

    static func load(_ path: String) throws -> VerificationFixture { try VerificationFixture(contentsOf: try url(path)) }

    /// A base64url member of the recorded credential, as the bytes Apple's object would hold.
    static func bytes(_ fixture: VerificationFixture, _ path: String...) throws -> Data {
        var value: JSONValue? = fixture.credential
        for name in path { value = value?.objectValue?[name] }
        let encoded = try #require(value?.stringValue, "\(path)")
        return Data(try #require(Base64URL.decode(encoded), "\(path)"))
    }
}

@Suite("Apple credentials to WebAuthn L3 JSON, with credentials recorded from Apple devices")
struct CredentialConversionTests {
    @Test("an iOS registration converts to the recorded RegistrationResponseJSON members and verifies", arguments: [
        "registration/yubico-apple-ios.json", "registration/py_webauthn-apple-passkey-2021.json",
    ])
    func registration(path: String) throws {
        var fixture = try RecordedFixture.load(path)
        let recorded = RecordedRegistration(
            rawClientDataJSON: try RecordedFixture.bytes(fixture, "response", "clientDataJSON"),
            credentialID: try RecordedFixture.bytes(fixture, "rawId"),
            rawAttestationObject: try RecordedFixture.bytes(fixture, "response", "attestationObject"),
            webAuthnAttachment: .platform, webAuthnTransports: [.hybrid, .internal])
        let json = try AppleCredentialConversion.registrationResponse(recorded, credPropsRequested: true)

        let original = try RegistrationResponseJSON(json: fixture.credential)
        #expect(json.id == original.id && json.rawId == original.rawId)
        #expect(json.response.clientDataJSON == original.response.clientDataJSON)
        #expect(json.response.attestationObject == Base64URL.encode(try RecordedFixture.bytes(fixture, "response", "attestationObject")))
        #expect(json.response.transports == [.hybrid, .internal])
        #expect(json.authenticatorAttachment == .platform)
        #expect(json.clientExtensionResults == ["credProps": .object(["rk": true])])
        #expect(json.type == .publicKey)
        // base64url without padding everywhere.
        let text = json.jsonString
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))

        // The converted JSON is what the server receives: it must verify under the recorded expectations.
        fixture.credential = try JSONValue.parse(text)
        let report = try FixtureVerifier().verify(fixture)
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        #expect(report.format == "apple")
        #expect(report.credentialID == original.id)
    }

    @Test("the same device's sign-in converts byte for byte and verifies against the registered key")
    func assertion() throws {
        var fixture = try RecordedFixture.load("authentication/yubico-apple-ios.json")
        let recorded = RecordedAssertion(
            rawClientDataJSON: try RecordedFixture.bytes(fixture, "response", "clientDataJSON"),
            credentialID: try RecordedFixture.bytes(fixture, "rawId"),
            webAuthnAuthenticatorData: try RecordedFixture.bytes(fixture, "response", "authenticatorData"),
            webAuthnSignature: try RecordedFixture.bytes(fixture, "response", "signature"),
            webAuthnUserHandle: Data(), webAuthnAttachment: .platform)
        let json = try AppleCredentialConversion.authenticationResponse(recorded)

        let response = try #require(fixture.credential.objectValue?["response"]?.objectValue)
        #expect(json.id == "StK4O785nfwQGrQzZF1-mgYT2Uk" && json.rawId == json.id)
        #expect(.string(json.response.clientDataJSON) == response["clientDataJSON"])
        #expect(.string(json.response.authenticatorData) == response["authenticatorData"])
        #expect(.string(json.response.signature) == response["signature"])
        #expect(json.response.userHandle == nil)  // the recorded assertion carried no user handle
        #expect(json.clientExtensionResults.isEmpty)

        fixture.credential = try JSONValue.parse(json.jsonString)
        let report = try FixtureVerifier().verify(fixture)
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        #expect(report.userVerified == true)
    }

    @Test("authenticatorData, publicKey and publicKeyAlgorithm are derived from the attestation object as a browser derived them")
    func derivedMembers() throws {
        let fixture = try RecordedFixture.load("registration/simplewebauthn-packed-aaguid-extension-mismatch.json")
        let recorded = RecordedRegistration(
            rawClientDataJSON: try RecordedFixture.bytes(fixture, "response", "clientDataJSON"), credentialID: try RecordedFixture.bytes(fixture, "rawId"),
            rawAttestationObject: try RecordedFixture.bytes(fixture, "response", "attestationObject"), webAuthnAttachment: .crossPlatform,
            webAuthnTransports: [.usb])
        let json = try AppleCredentialConversion.registrationResponse(recorded)
        let browser = try RegistrationResponseJSON(json: fixture.credential).response
        #expect(json.response.authenticatorData != nil && json.response.authenticatorData == browser.authenticatorData)
        #expect(json.response.publicKey != nil && json.response.publicKey == browser.publicKey, "DER SubjectPublicKeyInfo, byte for byte")
        #expect(json.response.publicKeyAlgorithm == .es256 && json.response.publicKeyAlgorithm == browser.publicKeyAlgorithm)
        // An attestation object that cannot be read gives none of them, and the response still goes as the platform made it.
        let unreadable = RecordedRegistration(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([9]), rawAttestationObject: Data([0xa0]), webAuthnAttachment: .platform,
            webAuthnTransports: [])
        let plain = try AppleCredentialConversion.registrationResponse(unreadable)
        #expect(plain.response.authenticatorData == nil && plain.response.publicKey == nil && plain.response.publicKeyAlgorithm == nil)
    }

    @Test("user handle, largeBlob and PRF outputs become the L3 members; security keys report cross-platform and their transports")
    func extensionOutputsAndUserHandle() throws {
        let assertion = RecordedAssertion(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([0xfb, 0xff]), webAuthnAuthenticatorData: Data(repeating: 1, count: 37),
            webAuthnSignature: Data([0x30, 0x00]), webAuthnUserHandle: Data([0xfa, 0xfb, 0xfc]), webAuthnAttachment: .crossPlatform,
            extensionOutputs: AppleAssertionExtensionOutputs(largeBlobData: [0xff, 0xfe], prfFirst: [1, 2, 3], prfSecond: [4]))
        let json = try AppleCredentialConversion.authenticationResponse(assertion)
        #expect(json.id == "-_8")
        #expect(json.response.userHandle == "-vv8")
        #expect(json.authenticatorAttachment == .crossPlatform)
        #expect(
            json.clientExtensionResults == [
                "largeBlob": .object(["blob": "__4"]), "prf": .object(["results": .object(["first": "AQID", "second": "BA"])]),
            ])
        let written = RecordedAssertion(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([1]), webAuthnAuthenticatorData: Data(repeating: 1, count: 37),
            webAuthnSignature: Data([1]), webAuthnUserHandle: Data(), webAuthnAttachment: nil, extensionOutputs: AppleAssertionExtensionOutputs(largeBlobWritten: true))
        #expect(try AppleCredentialConversion.authenticationResponse(written).clientExtensionResults == ["largeBlob": .object(["written": true])])
        let nothingToRead = RecordedAssertion(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([1]), webAuthnAuthenticatorData: Data(repeating: 1, count: 37),
            webAuthnSignature: Data([1]), webAuthnUserHandle: Data(), webAuthnAttachment: nil, extensionOutputs: AppleAssertionExtensionOutputs(largeBlobRead: true))
        #expect(
            try AppleCredentialConversion.authenticationResponse(nothingToRead).clientExtensionResults == ["largeBlob": .object([:])],
            "a read with nothing stored keeps the output, without blob (§10.1.5)")

        let key = RecordedRegistration(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([9]), rawAttestationObject: Data([0xa0]),
            webAuthnAttachment: .crossPlatform, webAuthnTransports: [.usb, .nfc],
            extensionOutputs: AppleRegistrationExtensionOutputs(largeBlobSupported: false, prfEnabled: true))
        let registration = try AppleCredentialConversion.registrationResponse(key, credPropsRequested: true)
        #expect(registration.response.transports == [.usb, .nfc])
        // credProps is not invented for a security key: Apple does not say whether it made a discoverable credential.
        #expect(registration.clientExtensionResults == ["largeBlob": .object(["supported": false]), "prf": .object(["enabled": true])])
        let prfAtCreation = RecordedRegistration(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([9]), rawAttestationObject: Data([0xa0]), webAuthnAttachment: .platform,
            webAuthnTransports: [], extensionOutputs: AppleRegistrationExtensionOutputs(prfEnabled: true, prfFirst: [7]))
        let created = try AppleCredentialConversion.registrationResponse(prfAtCreation)
        #expect(created.clientExtensionResults == ["prf": .object(["enabled": true, "results": .object(["first": "Bw"])])])
        #expect(created.response.transports == [], "transports is required in L3: present, and empty when the platform reported none")
    }

    @Test("unusable platform objects are invalid_response, never a trap")
    func invalidResponses() throws {
        func registrationCode(_ credential: RecordedRegistration) -> PasskeyError.Code? {
            capture { () throws(PasskeyError) in try AppleCredentialConversion.registrationResponse(credential) }.error?.code
        }
        let good = RecordedRegistration(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([1]), rawAttestationObject: Data([0xa0]), webAuthnAttachment: nil,
            webAuthnTransports: [])
        var noAttestation = good
        noAttestation.rawAttestationObject = nil
        var noID = good
        noID.credentialID = Data()
        var longID = good
        longID.credentialID = Data(repeating: 0, count: 1024)
        var noClientData = good
        noClientData.rawClientDataJSON = Data()
        #expect(registrationCode(good) == nil)
        for credential in [noAttestation, noID, longID, noClientData] { #expect(registrationCode(credential) == .invalidResponse) }
        let unsigned = RecordedAssertion(
            rawClientDataJSON: Data("{}".utf8), credentialID: Data([1]), webAuthnAuthenticatorData: Data(repeating: 1, count: 37),
            webAuthnSignature: Data(), webAuthnUserHandle: Data(), webAuthnAttachment: nil)
        #expect(capture { () throws(PasskeyError) in try AppleCredentialConversion.authenticationResponse(unsigned) }.error?.code == .invalidResponse)

        // Apple imports the assertion's bytes as `Data!`: a nil there is an unusable response, not a trap.
        func assertionCode(_ credential: RecordedAssertion) -> PasskeyError.Code? {
            capture { () throws(PasskeyError) in try AppleCredentialConversion.authenticationResponse(credential) }.error?.code
        }
        var signed = unsigned
        signed.webAuthnSignature = Data([0x30, 0x00])
        #expect(assertionCode(signed) == nil)
        var noAuthenticatorData = signed
        noAuthenticatorData.webAuthnAuthenticatorData = nil
        var noSignature = signed
        noSignature.webAuthnSignature = nil
        #expect(assertionCode(noAuthenticatorData) == .invalidResponse)
        #expect(assertionCode(noSignature) == .invalidResponse)
        var noUserHandle = signed
        noUserHandle.webAuthnUserHandle = nil
        #expect(try AppleCredentialConversion.authenticationResponse(noUserHandle).response.userHandle == nil)
    }
}
