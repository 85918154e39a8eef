// Stand-in for account creation (iOS, macOS and visionOS 26): ASAuthorizationAccountCreationProvider, its request and
// credential, and the contact types, as the SDK's AuthenticationServices.swiftinterface declares them. Declarations
// only.
public import Foundation

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public enum ASContactIdentifierRequest: Sendable, Hashable {
    case phoneNumber
    case email
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public enum ASContactIdentifier: Sendable {
    case phoneNumber(ASPhoneNumberIdentifier)
    case email(ASEmailIdentifier)
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct ASPhoneNumberIdentifier: Sendable {
    public var value: String
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct ASEmailIdentifier: Sendable {
    public var value: String
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class ASAuthorizationAccountCreationProvider: NSObject, ASAuthorizationProvider {
    public override init() { fatalError() }
    public func createPlatformPublicKeyCredentialRegistrationRequest(
        acceptedContactIdentifiers: [ASContactIdentifierRequest], shouldRequestName: Bool, relyingPartyIdentifier: String, challenge: Data,
        userID: Data
    ) -> ASAuthorizationAccountCreationPlatformPublicKeyCredentialRequest { fatalError() }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class ASAuthorizationAccountCreationPlatformPublicKeyCredentialRequest: ASAuthorizationRequest, @unchecked Sendable {
    public var acceptedContactIdentifiers: [ASContactIdentifierRequest] { fatalError() }
    public var shouldRequestName: Bool { fatalError() }
    public var relyingPartyIdentifier: String { fatalError() }
    public var challenge: Data { fatalError() }
    public var userID: Data { fatalError() }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class ASAuthorizationAccountCreationPlatformPublicKeyCredential: NSObject, ASAuthorizationCredential, @unchecked Sendable {
    public var name: PersonNameComponents? {
        get { fatalError() }
        set { fatalError() }
    }
    public var contactIdentifier: ASContactIdentifier { fatalError() }
    public var credentialRegistration: ASAuthorizationPlatformPublicKeyCredentialRegistration {
        get { fatalError() }
        set { fatalError() }
    }
}
