// Stand-in for the security-key provider, requests and credentials (ASAuthorizationSecurityKeyPublicKeyCredential*.h).
// Declarations only. iOS 15, macOS 12, Mac Catalyst; not on tvOS, watchOS or visionOS.
public import Foundation

open class ASAuthorizationSecurityKeyPublicKeyCredentialProvider: NSObject, ASAuthorizationProvider, @unchecked Sendable {
    public init(relyingPartyIdentifier: String) { fatalError() }
    open var relyingPartyIdentifier: String { fatalError() }
    open func createCredentialRegistrationRequest(challenge: Data, displayName: String, name: String, userID: Data)
        -> ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest { fatalError() }
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest { fatalError() }
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor: NSObject, @unchecked Sendable {
    public init(credentialID: Data, transports allowedTransports: [Transport]) { fatalError() }
    open var credentialID: Data {
        get { fatalError() }
        set { fatalError() }
    }
    open var transports: [Transport] {
        get { fatalError() }
        set { fatalError() }
    }

    /// `ASAuthorizationSecurityKeyPublicKeyCredentialDescriptorTransport`.
    public struct Transport: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { fatalError() }
        public init(_ rawValue: String) { fatalError() }
        public static var usb: Transport { fatalError() }
        public static var nfc: Transport { fatalError() }
        public static var bluetooth: Transport { fatalError() }
        public static var allSupported: [Transport] { fatalError() }
    }
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest,
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
    open var credentialParameters: [ASAuthorizationPublicKeyCredentialParameters] {
        get { fatalError() }
        set { fatalError() }
    }
    open var excludedCredentials: [ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor] {
        get { fatalError() }
        set { fatalError() }
    }
    open var residentKeyPreference: ASAuthorizationPublicKeyCredentialResidentKeyPreference {
        get { fatalError() }
        set { fatalError() }
    }
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest: ASAuthorizationRequest,
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
    open var allowedCredentials: [ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor] {
        get { fatalError() }
        set { fatalError() }
    }
    @available(iOS 17.5, macOS 14.5, *)
    open var appID: String? {
        get { fatalError() }
        set { fatalError() }
    }
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialRegistration: NSObject, ASAuthorizationPublicKeyCredentialRegistration,
    @unchecked Sendable
{
    open var rawClientDataJSON: Data { fatalError() }
    open var credentialID: Data { fatalError() }
    open var rawAttestationObject: Data? { fatalError() }

    @available(iOS 17.5, macOS 14.5, *)
    open var transports: [ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport] { fatalError() }
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialAssertion: NSObject, ASAuthorizationPublicKeyCredentialAssertion,
    @unchecked Sendable
{
    open var rawClientDataJSON: Data { fatalError() }
    open var credentialID: Data { fatalError() }
    open var rawAuthenticatorData: Data! { fatalError() }
    open var userID: Data! { fatalError() }
    open var signature: Data! { fatalError() }
    @available(iOS 17.5, macOS 14.5, *)
    open var appID: Bool { fatalError() }
}
