import Foundation
import PasskeyClient
import PasskeyWire

/// Options as a relying-party server sends them, with everything a test may vary.
enum Options {
    static let challenge = Base64URL.encode([UInt8](repeating: 7, count: 32))
    static let userID = Base64URL.encode([UInt8](repeating: 1, count: 16))
    static let credentialA: [UInt8] = [0xA1, 0xA2, 0xA3]
    static let credentialB: [UInt8] = [0xB1, 0xB2]

    static func creation(
        rpID: String? = "example.com", challenge: String = challenge, userID: String = userID,
        algorithms: [COSEAlgorithmIdentifier] = [.es256, .rs256], exclude: [PublicKeyCredentialDescriptorJSON]? = nil,
        selection: AuthenticatorSelectionCriteria? = nil, attestation: AttestationConveyancePreference? = nil,
        extensions: JSONObject? = nil
    ) -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: rpID, name: "Example"),
            user: PublicKeyCredentialUserEntityJSON(id: userID, name: "ann@example.com", displayName: "Ann"), challenge: challenge,
            pubKeyCredParams: algorithms.map { PublicKeyCredentialParameters(alg: $0) }, timeout: 60_000,
            excludeCredentials: exclude, authenticatorSelection: selection, attestation: attestation, extensions: extensions)
    }

    static func request(
        rpID: String? = "example.com", challenge: String = challenge, allow: [PublicKeyCredentialDescriptorJSON]? = nil,
        userVerification: UserVerificationRequirement? = nil, extensions: JSONObject? = nil
    ) -> PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(
            challenge: challenge, timeout: 60_000, rpId: rpID, allowCredentials: allow, userVerification: userVerification,
            extensions: extensions)
    }

    static func descriptor(_ id: [UInt8], _ transports: [AuthenticatorTransport]? = nil) -> PublicKeyCredentialDescriptorJSON {
        PublicKeyCredentialDescriptorJSON(id: Base64URL.encode(id), transports: transports)
    }

    /// Both credentials excluded: A is a phone or keychain passkey (internal, hybrid), B a USB key.
    static let exclusions = [descriptor(credentialA, [.internal, .hybrid]), descriptor(credentialB, [.usb, .internal])]
}

extension Result where Failure == PasskeyError {
    var error: PasskeyError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Runs a throwing plan builder and captures its typed error.
func capture<T>(_ body: () throws(PasskeyError) -> T) -> Result<T, PasskeyError> {
    do throws(PasskeyError) { return .success(try body()) } catch { return .failure(error) }
}
