#if PASSKEY_APPLE_ADAPTER
#if canImport(AuthenticationServices)
public import AuthenticationServices
import CryptoKit
#else
public import AuthenticationServicesStandIn
#endif
public import Foundation
public import PasskeyClient
public import PasskeyWire

// Apple's credential classes described by the SDK's protocols, so the conversion to WebAuthn JSON
// (AppleCredentialConversion, tested on Linux with recorded bytes) is the only conversion code. The byte members
// rawClientDataJSON, credentialID and rawAttestationObject match by name and type; an assertion's
// rawAuthenticatorData, signature and userID are `Data!` in Apple's SDK and are forwarded below; attachment, transports
// and extension outputs need code. The protocols are module-qualified to say these
// conformances of another module's types are intended (a plain name would warn; `@retroactive` is refused on Linux,
// where the stand-in is in this package).

extension ASAuthorizationPlatformPublicKeyCredentialRegistration: PasskeyClient.AppleCredentialRegistrationValues {
    public var webAuthnAttachment: AuthenticatorAttachment? { platformAttachment(self) }

    /// A platform passkey is used on this device and from others over hybrid; one made on a phone over hybrid
    /// (cross-platform attachment) over hybrid only.
    public var webAuthnTransports: [AuthenticatorTransport] {
        webAuthnAttachment == .crossPlatform ? [.hybrid] : [.hybrid, .internal]
    }

    public var extensionOutputs: AppleRegistrationExtensionOutputs {
        var outputs = AppleRegistrationExtensionOutputs()
        if #available(iOS 17.0, macOS 14.0, *) { outputs.largeBlobSupported = largeBlob?.isSupported }
        if #available(iOS 18.0, macOS 15.0, visionOS 2.0, *), let prf {
            outputs.prfEnabled = prf.isSupported
            outputs.prfFirst = prf.first.map(bytes)
            outputs.prfSecond = prf.second.map(bytes)
        }
        return outputs
    }
}

/// Every Apple assertion, platform or security key: the `Data!` members as the optionals the conversion checks.
extension PasskeyClient.AppleCredentialAssertionValues where Self: ASAuthorizationPublicKeyCredentialAssertion {
    public var webAuthnAuthenticatorData: Data? { rawAuthenticatorData }
    public var webAuthnSignature: Data? { signature }
    public var webAuthnUserHandle: Data? { userID }
}

extension ASAuthorizationPlatformPublicKeyCredentialAssertion: PasskeyClient.AppleCredentialAssertionValues {
    public var webAuthnAttachment: AuthenticatorAttachment? { platformAttachment(self) }

    public var extensionOutputs: AppleAssertionExtensionOutputs {
        var outputs = AppleAssertionExtensionOutputs()
        if #available(iOS 17.0, macOS 14.0, *), let largeBlob {
            if case .read(let data) = largeBlob.result {
                outputs.largeBlobRead = true
                outputs.largeBlobData = data.map { [UInt8]($0) }
            }
            if case .write(let success) = largeBlob.result { outputs.largeBlobWritten = success }
        }
        if #available(iOS 18.0, macOS 15.0, visionOS 2.0, *), let prf {
            outputs.prfFirst = bytes(prf.first)
            outputs.prfSecond = prf.second.map(bytes)
        }
        return outputs
    }
}

#if !os(visionOS)  // security keys: iOS and macOS only
extension ASAuthorizationSecurityKeyPublicKeyCredentialRegistration: PasskeyClient.AppleCredentialRegistrationValues {
    public var webAuthnAttachment: AuthenticatorAttachment? { .crossPlatform }

    public var webAuthnTransports: [AuthenticatorTransport] {
        guard #available(iOS 17.5, macOS 14.5, *) else { return [] }
        return transports.compactMap { (transport) -> AuthenticatorTransport? in
            switch transport {
            case .usb: AuthenticatorTransport.usb
            case .nfc: .nfc
            case .bluetooth: .ble
            default: nil
            }
        }
    }

    public var extensionOutputs: AppleRegistrationExtensionOutputs { AppleRegistrationExtensionOutputs() }
}

extension ASAuthorizationSecurityKeyPublicKeyCredentialAssertion: PasskeyClient.AppleCredentialAssertionValues {
    public var webAuthnAttachment: AuthenticatorAttachment? { .crossPlatform }
    public var extensionOutputs: AppleAssertionExtensionOutputs { AppleAssertionExtensionOutputs() }
}
#endif

/// `attachment` exists from iOS 16.6 / macOS 13.5; before that the platform provider does not say.
private func platformAttachment(_ credential: ASAuthorizationPlatformPublicKeyCredentialRegistration) -> AuthenticatorAttachment? {
    guard #available(iOS 16.6, macOS 13.5, *) else { return nil }
    return credential.attachment == .crossPlatform ? .crossPlatform : .platform
}

private func platformAttachment(_ credential: ASAuthorizationPlatformPublicKeyCredentialAssertion) -> AuthenticatorAttachment? {
    guard #available(iOS 16.6, macOS 13.5, *) else { return nil }
    return credential.attachment == .crossPlatform ? .crossPlatform : .platform
}

private func bytes(_ key: SymmetricKey) -> [UInt8] {
    key.withUnsafeBytes { [UInt8]($0) }
}

extension ASAuthorizationAppleIDCredential: PasskeyClient.AppleIDCredentialValues {
    public var authorizedScopeNames: [String] { authorizedScopes.map(\.rawValue) }

    /// Compared rather than switched: Apple's enum may grow, and a new status reads as unknown.
    public var detectedUserStatus: AppleIDCredential.RealUserStatus {
        if realUserStatus == .likelyReal { return .likelyReal }
        if realUserStatus == .unsupported { return .unsupported }
        return .unknown
    }
}
#endif
