// Stand-in for saved passwords in an authorization sheet (ASAuthorizationPasswordProvider.h,
// ASAuthorizationPasswordRequest.h, ASPasswordCredential.h). Declarations only.
public import Foundation

open class ASAuthorizationPasswordProvider: NSObject, ASAuthorizationProvider, @unchecked Sendable {
    open func createRequest() -> ASAuthorizationPasswordRequest { fatalError() }
}

open class ASAuthorizationPasswordRequest: ASAuthorizationRequest, @unchecked Sendable {}

open class ASPasswordCredential: NSObject, ASAuthorizationCredential, @unchecked Sendable {
    public init(user: String, password: String) { fatalError() }
    open var user: String { fatalError() }
    open var password: String { fatalError() }
}
