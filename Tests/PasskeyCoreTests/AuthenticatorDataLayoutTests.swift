import Foundation
import PasskeyAuthenticatorData
import PasskeyCBOR
import PasskeyCore
import PasskeyDiagnostics
import PasskeyTestSupport
import PasskeyWire
import Testing

/// The verifier's strict parser and the SDK's lenient reader share one layout (``AuthenticatorDataLayout``): on every
/// real registration they find the same fields, and what the tests and the software authenticator write reads back.
@Suite("One authenticator-data layout")
struct AuthenticatorDataLayoutTests {
    /// The authenticator data of a registration fixture, as the verifier parses it; nil for fixtures whose attestation
    /// object does not parse (they test exactly that).
    static func authenticatorData(_ name: String) throws -> (bytes: [UInt8], parsed: AuthenticatorData)? {
        let fixture = try Fixtures.load("registration", name)
        guard case .string(let encoded)? = fixture.credential.objectValue?["response"]?.objectValue?["attestationObject"],
            let bytes = Base64URL.decode(encoded), let object = try? AttestationObject(bytes: bytes)
        else { return nil }
        return (object.authenticatorData.bytes, object.authenticatorData)
    }

    @Test("on every real registration the SDK's reader finds what the verifier parses", arguments: Fixtures.names("registration"))
    func realRegistrations(name: String) throws {
        guard let (bytes, parsed) = try Self.authenticatorData(name) else { return }
        let fields = try #require(AuthenticatorDataFields(bytes: bytes))
        #expect(fields.rpIDHash == parsed.rpIDHash)
        #expect(fields.flags == parsed.flags)
        #expect(fields.signCount == parsed.signCount)
        let attested = try #require(parsed.attestedCredentialData)
        let read = try #require(fields.attestedCredential)
        #expect(read.aaguid == attested.aaguid.bytes)
        #expect(read.credentialID == attested.credentialID)
        #expect(read.credentialPublicKey == attested.credentialPublicKeyBytes)
    }

    @Test("there are real registrations to compare")
    func someCompared() throws {
        #expect(try Fixtures.names("registration").compactMap { try Self.authenticatorData($0) }.count >= 30)
    }

    @Test("written by the shared layout, read back by the verifier: flags, counter, AAGUID, credential ID and key")
    func roundTrip() throws {
        let device = try TestAuthenticator()
        var builder = AuthenticatorDataBuilder()
        builder.flags = [.userPresent, .userVerified, .backupEligible, .attestedCredentialData]
        builder.signCount = 0x0102_0304
        builder.aaguid = Array(1...16)
        builder.credentialID = Array(repeating: 0xc1, count: 300)
        builder.credentialPublicKey = device.key.coseKey.encoded
        let bytes = builder.build()
        let parsed = try AuthenticatorData(bytes: bytes)
        #expect(parsed.signCount == 0x0102_0304 && parsed.backupEligible && !parsed.backupState)
        #expect(parsed.attestedCredentialData?.aaguid.bytes == Array(1...16))
        #expect(parsed.attestedCredentialData?.credentialID.count == 300)
        #expect(AuthenticatorDataFields(bytes: bytes)?.attestedCredential?.credentialPublicKey == device.key.coseKey.encoded)
    }

    @Test("every truncation of a real one reads leniently without trapping: nil below 37 bytes, no credential until its key is whole")
    func truncations() throws {
        let name = try #require(Fixtures.names("registration").first { (try? Self.authenticatorData($0)) != nil })
        let (bytes, parsed) = try #require(try Self.authenticatorData(name))
        let attested = try #require(parsed.attestedCredentialData)
        // Where the credential's key ends: extension outputs may follow it.
        let keyEnd = AuthenticatorDataLayout.minimumLength + AuthenticatorDataLayout.attestedCredentialDataHeaderLength
            + attested.credentialID.count + attested.credentialPublicKeyBytes.count
        for length in 0...bytes.count {
            let fields = AuthenticatorDataFields(bytes: Array(bytes.prefix(length)))
            if length < AuthenticatorDataLayout.minimumLength {
                #expect(fields == nil, "\(length) bytes")
            } else if length < keyEnd {
                #expect(fields != nil && fields?.attestedCredential == nil, "\(length) bytes of \(bytes.count)")
            } else {
                #expect(fields?.attestedCredential?.credentialID == attested.credentialID, "\(length) bytes of \(bytes.count)")
            }
        }
    }
}
