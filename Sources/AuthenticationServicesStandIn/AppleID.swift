// Stand-in for Sign in with Apple in an authorization sheet (ASAuthorizationAppleIDProvider.h,
// ASAuthorizationOpenIDRequest.h, ASAuthorizationAppleIDRequest.h, ASAuthorizationAppleIDCredential.h and the scopes of
// ASAuthorization.h). Declarations only.
public import Foundation

extension ASAuthorization {
    public struct Scope: RawRepresentable, Hashable, @unchecked Sendable {
        public let rawValue: String
        public init(rawValue: String) { fatalError() }
        public init(_ rawValue: String) { fatalError() }
        public static let fullName: ASAuthorization.Scope = { fatalError() }()
        public static let email: ASAuthorization.Scope = { fatalError() }()
    }
}

open class ASAuthorizationAppleIDProvider: NSObject, ASAuthorizationProvider, @unchecked Sendable {
    open func createRequest() -> ASAuthorizationAppleIDRequest { fatalError() }
}

open class ASAuthorizationOpenIDRequest: ASAuthorizationRequest, @unchecked Sendable {
    open var requestedScopes: [ASAuthorization.Scope]? {
        get { fatalError() }
        set { fatalError() }
    }
    open var state: String? {
        get { fatalError() }
        set { fatalError() }
    }
    open var nonce: String? {
        get { fatalError() }
        set { fatalError() }
    }
}

open class ASAuthorizationAppleIDRequest: ASAuthorizationOpenIDRequest, @unchecked Sendable {
    open var user: String? {
        get { fatalError() }
        set { fatalError() }
    }
}

public enum ASUserDetectionStatus: Int, Sendable {
    case unsupported = 0
    case unknown = 1
    case likelyReal = 2
}

open class ASAuthorizationAppleIDCredential: NSObject, ASAuthorizationCredential, @unchecked Sendable {
    open var user: String { fatalError() }
    open var state: String? { fatalError() }
    open var authorizedScopes: [ASAuthorization.Scope] { fatalError() }
    open var authorizationCode: Data? { fatalError() }
    open var identityToken: Data? { fatalError() }
    open var email: String? { fatalError() }
    open var fullName: PersonNameComponents? { fatalError() }
    open var realUserStatus: ASUserDetectionStatus { fatalError() }
}
