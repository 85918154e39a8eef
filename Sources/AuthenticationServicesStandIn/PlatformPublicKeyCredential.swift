// Stand-in for the platform (passkey) provider, requests and credentials
// (ASAuthorizationPlatformPublicKeyCredential*.h and their Swift refinements). Declarations only.
public import Foundation

open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject, ASAuthorizationProvider, @unchecked Sendable {
    public init(relyingPartyIdentifier: String) { fatalError() }
    open var relyingPartyIdentifier: String { fatalError() }
    open func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest { fatalError() }
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest { fatalError() }
}

open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject, @unchecked Sendable {
    public init(credentialID: Data) { fatalError() }
    open var credentialID: Data {
        get { fatalError() }
        set { fatalError() }
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest,
    ASAuthorizationPublicKeyCredentialRegistrationRequest, @unchecked Sendable
{
    open var relyingPartyIdentifier: String { fatalError() }
    open var userID: Data {
        get { fatalError() }
        set { fatalError() }
    }
    open var name: String {
        get { fatalError() }
        set { fatalError() }
    }
    open var displayName: String? {
        get { fatalError() }
        set { fatalError() }
    }
    open var challenge: Data {
        get { fatalError() }
        set { fatalError() }
    }
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference {
        get { fatalError() }
        set { fatalError() }
    }
    open var attestationPreference: ASAuthorizationPublicKeyCredentialAttestationKind {
        get { fatalError() }
        set { fatalError() }
    }

    /// From `ASAuthorizationWebBrowserPlatformPublicKeyCredentialRegistrationRequest`.
    @available(iOS 17.4, macOS 13.5, macCatalyst 16.6, *)
    @available(visionOS, unavailable)
    open var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor]? {
        get { fatalError() }
        set { fatalError() }
    }

    @available(iOS 17.0, macOS 14.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var largeBlob: ASAuthorizationPublicKeyCredentialLargeBlobRegistrationInput? {
        get { fatalError() }
        set { fatalError() }
    }

    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var prf: ASAuthorizationPublicKeyCredentialPRFRegistrationInput? {
        get { fatalError() }
        set { fatalError() }
    }

    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    open var requestStyle: RequestStyle {
        get { fatalError() }
        set { fatalError() }
    }

    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    public enum RequestStyle: Int, Sendable {
        case standard = 0
        case conditional = 1
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest,
    ASAuthorizationPublicKeyCredentialAssertionRequest, @unchecked Sendable
{
    open var challenge: Data {
        get { fatalError() }
        set { fatalError() }
    }
    open var relyingPartyIdentifier: String {
        get { fatalError() }
        set { fatalError() }
    }
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference {
        get { fatalError() }
        set { fatalError() }
    }
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] {
        get { fatalError() }
        set { fatalError() }
    }

    @available(iOS 17.0, macOS 14.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var largeBlob: ASAuthorizationPublicKeyCredentialLargeBlobAssertionInput? {
        get { fatalError() }
        set { fatalError() }
    }

    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var prf: ASAuthorizationPublicKeyCredentialPRFAssertionInput? {
        get { fatalError() }
        set { fatalError() }
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationPublicKeyCredentialRegistration,
    @unchecked Sendable
{
    open var rawClientDataJSON: Data { fatalError() }
    open var credentialID: Data { fatalError() }
    open var rawAttestationObject: Data? { fatalError() }

    @available(iOS 16.6, macOS 13.5, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    open var attachment: ASAuthorizationPublicKeyCredentialAttachment { fatalError() }

    @available(iOS 17.0, macOS 14.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var largeBlob: ASAuthorizationPublicKeyCredentialLargeBlobRegistrationOutput? { fatalError() }

    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var prf: ASAuthorizationPublicKeyCredentialPRFRegistrationOutput? { fatalError() }
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationPublicKeyCredentialAssertion,
    @unchecked Sendable
{
    open var rawClientDataJSON: Data { fatalError() }
    open var credentialID: Data { fatalError() }
    open var rawAuthenticatorData: Data! { fatalError() }
    open var userID: Data! { fatalError() }
    open var signature: Data! { fatalError() }

    @available(iOS 16.6, macOS 13.5, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    open var attachment: ASAuthorizationPublicKeyCredentialAttachment { fatalError() }

    @available(iOS 17.0, macOS 14.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var largeBlob: ASAuthorizationPublicKeyCredentialLargeBlobAssertionOutput? { fatalError() }

    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var prf: ASAuthorizationPublicKeyCredentialPRFAssertionOutput? { fatalError() }
}
