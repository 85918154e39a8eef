// Stand-in for the shared public-key credential types (ASAuthorizationPublicKeyCredentialConstants.h,
// ASAuthorizationPublicKeyCredentialParameters.h, ASCOSEConstants.h). Declarations only.
public import Foundation

public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { fatalError() }
    public init(_ rawValue: String) { fatalError() }
    public static var required: Self { fatalError() }
    public static var preferred: Self { fatalError() }
    public static var discouraged: Self { fatalError() }
}

public struct ASAuthorizationPublicKeyCredentialAttestationKind: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { fatalError() }
    public init(_ rawValue: String) { fatalError() }
    public static var none: Self { fatalError() }
    public static var direct: Self { fatalError() }
    public static var indirect: Self { fatalError() }
    public static var enterprise: Self { fatalError() }
}

public struct ASAuthorizationPublicKeyCredentialResidentKeyPreference: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { fatalError() }
    public init(_ rawValue: String) { fatalError() }
    public static var discouraged: Self { fatalError() }
    public static var preferred: Self { fatalError() }
    public static var required: Self { fatalError() }
}

@available(iOS 16.6, macOS 13.5, *)
public enum ASAuthorizationPublicKeyCredentialAttachment: Int, Sendable {
    case platform = 0
    case crossPlatform = 1
}

public struct ASCOSEAlgorithmIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { fatalError() }
    public init(_ rawValue: Int) { fatalError() }
    public static var ES256: Self { fatalError() }
}

open class ASAuthorizationPublicKeyCredentialParameters: NSObject, @unchecked Sendable {
    public init(algorithm: ASCOSEAlgorithmIdentifier) { fatalError() }
    open var algorithm: ASCOSEAlgorithmIdentifier { fatalError() }
}

/// `ASPublicKeyCredential`: every public-key credential.
public protocol ASPublicKeyCredential: ASAuthorizationCredential {
    var rawClientDataJSON: Data { get }
    var credentialID: Data { get }
}

public protocol ASAuthorizationPublicKeyCredentialRegistration: ASPublicKeyCredential {
    var rawAttestationObject: Data? { get }
}

public protocol ASAuthorizationPublicKeyCredentialAssertion: ASPublicKeyCredential {
    var rawAuthenticatorData: Data! { get }
    var userID: Data! { get }
    var signature: Data! { get }
}

public protocol ASAuthorizationPublicKeyCredentialRegistrationRequest: NSObjectProtocol {
    var relyingPartyIdentifier: String { get }
    var userID: Data { get set }
    var name: String { get set }
    var displayName: String? { get set }
    var challenge: Data { get set }
    var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }
    var attestationPreference: ASAuthorizationPublicKeyCredentialAttestationKind { get set }
}

public protocol ASAuthorizationPublicKeyCredentialAssertionRequest: NSObjectProtocol {
    var challenge: Data { get set }
    var relyingPartyIdentifier: String { get set }
    var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }
}
