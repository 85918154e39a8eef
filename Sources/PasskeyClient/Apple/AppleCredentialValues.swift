public import Foundation
public import PasskeyWire

/// What every public-key credential AuthenticationServices returns carries (`ASPublicKeyCredential`).
///
/// The byte members keep Apple's names and types where Apple's are non-optional or optional, so
/// `ASAuthorizationPlatformPublicKeyCredentialRegistration` and its siblings conform with no code; the members whose
/// Apple types cannot be named outside AuthenticationServices (attachment, transports, extension outputs, and an
/// assertion's `Data!` members) are ours, implemented by the adapter. Tests conform plain structs
/// holding recorded bytes, which is how the conversion to WebAuthn JSON is tested on Linux.
public protocol ApplePublicKeyCredentialValues {
    /// The client data exactly as the platform serialized and signed it; never re-serialized.
    var rawClientDataJSON: Data { get }
    var credentialID: Data { get }
    /// `platform` or `cross-platform` (iOS 16.6+ reports it for platform credentials; a security key is always
    /// cross-platform); `nil` when the OS does not say.
    var webAuthnAttachment: AuthenticatorAttachment? { get }
}

/// A new credential (`ASAuthorizationPublicKeyCredentialRegistration`).
public protocol AppleCredentialRegistrationValues: ApplePublicKeyCredentialValues {
    /// The CBOR attestation object; `nil` would be an unusable response.
    var rawAttestationObject: Data? { get }
    /// The transports the credential can be reached over, as WebAuthn names them; empty when unknown.
    var webAuthnTransports: [AuthenticatorTransport] { get }
    var extensionOutputs: AppleRegistrationExtensionOutputs { get }
}

/// A sign-in (`ASAuthorizationPublicKeyCredentialAssertion`).
///
/// Apple's byte members of an assertion (`rawAuthenticatorData`, `signature`, `userID`) import as `Data!`, since
/// `ASAuthorizationPublicKeyCredentialAssertion.h` has no nullability annotations, and `Data!` witnesses neither `Data`
/// nor `Data?`. So these are ours, optional, and the adapter forwards Apple's members to them: a missing authenticator
/// data or signature is then an unusable response rather than a trap.
public protocol AppleCredentialAssertionValues: ApplePublicKeyCredentialValues {
    /// `rawAuthenticatorData`.
    var webAuthnAuthenticatorData: Data? { get }
    /// `signature`.
    var webAuthnSignature: Data? { get }
    /// `userID`: the user handle; `nil` or empty when the authenticator returned none (a non-discoverable
    /// security-key credential).
    var webAuthnUserHandle: Data? { get }
    var extensionOutputs: AppleAssertionExtensionOutputs { get }
}

/// Extension outputs of a registration, in bytes (`largeBlob.isSupported`, `prf.isSupported`, `prf.first/second`).
public struct AppleRegistrationExtensionOutputs: Sendable, Hashable {
    public var largeBlobSupported: Bool?
    public var prfEnabled: Bool?
    public var prfFirst: [UInt8]?
    public var prfSecond: [UInt8]?

    public init(largeBlobSupported: Bool? = nil, prfEnabled: Bool? = nil, prfFirst: [UInt8]? = nil, prfSecond: [UInt8]? = nil) {
        self.largeBlobSupported = largeBlobSupported
        self.prfEnabled = prfEnabled
        self.prfFirst = prfFirst
        self.prfSecond = prfSecond
    }
}

/// Extension outputs of a sign-in, in bytes (`largeBlob` read data or write result, `prf.first/second`).
public struct AppleAssertionExtensionOutputs: Sendable, Hashable {
    /// A read was answered (`largeBlob.result` is `.read`), with or without data: WebAuthn L3 §10.1.5 has the
    /// `largeBlob` output present, without `blob`, when there was nothing to read.
    public var largeBlobRead: Bool
    public var largeBlobData: [UInt8]?
    public var largeBlobWritten: Bool?
    public var prfFirst: [UInt8]?
    public var prfSecond: [UInt8]?

    public init(
        largeBlobRead: Bool = false, largeBlobData: [UInt8]? = nil, largeBlobWritten: Bool? = nil, prfFirst: [UInt8]? = nil,
        prfSecond: [UInt8]? = nil
    ) {
        self.largeBlobRead = largeBlobRead || largeBlobData != nil
        self.largeBlobData = largeBlobData
        self.largeBlobWritten = largeBlobWritten
        self.prfFirst = prfFirst
        self.prfSecond = prfSecond
    }
}
