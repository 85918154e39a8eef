import Foundation
import PasskeyAttestation
import PasskeyClient
import PasskeyCore
import PasskeySoftwareAuthenticator
import PasskeyWire
import PasskeyTestSupport

/// The relying party the SDK tests talk to: example.com, with its website, its iOS app and its Android app.
enum TestRelyingParty {
    static let rpID = "example.com"
    static let webOrigin = "https://www.example.com"
    static let appleAppOrigin = "https://example.com"
    /// base64url SHA-256 of a made-up signing certificate.
    static let apkKeyHash = Base64URL.encode([UInt8](repeating: 0xa5, count: 32))
    static let androidOrigin = "android:apk-key-hash:\(apkKeyHash)"
    static let androidPackage = "com.example.app"

    /// Our verifier, accepting every origin above and every attestation format (self attestation included).
    static func relyingParty(
        userVerification: UserVerificationRequirement = .required, origins: [String] = [webOrigin, appleAppOrigin, androidOrigin]
    ) -> RelyingParty {
        RelyingParty(
            id: rpID, name: "Example", origins: origins, policy: CeremonyPolicy(userVerification: userVerification),
            attestationVerifiers: .standard())
    }

    static func userHandle(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 32) }

    static func registrationRequest(
        _ rp: RelyingParty = relyingParty(), user: UInt8 = 1, name: String = "ann@example.com", exclude: [CredentialRecord] = [],
        style: RegistrationStyle = .modal
    ) -> RegistrationRequest {
        RegistrationRequest(
            options: rp.makeRegistrationOptions(userHandle: userHandle(user), userName: name, excludeCredentials: exclude),
            style: style)
    }

    static func assertionRequest(
        _ rp: RelyingParty = relyingParty(), allow: [CredentialRecord] = [], mediation: AssertionMediation = .modal
    ) -> AssertionRequest {
        AssertionRequest(options: rp.makeAuthenticationOptions(allowCredentials: allow), mediation: mediation)
    }
}

/// The PasskeyError code a throwing async body ends with, or `nil` if it returned.
func passkeyErrorCode<T>(_ body: () async throws(PasskeyError) -> T) async -> PasskeyError.Code? {
    await thrownError(body)?.code
}


/// Polls until `condition` holds (at most about five seconds): for "the ceremony has started" without sleeping blindly.
func eventually(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<500 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = try temporaryFolderURL("passkey-sdk-tests")
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}
