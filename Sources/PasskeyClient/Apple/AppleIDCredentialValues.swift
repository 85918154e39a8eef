public import Foundation

/// What the conversion reads of Apple's `ASAuthorizationAppleIDCredential`: the members that match by name and type,
/// and the two that need code (the scopes and the user detection status), so ``AppleIDCredentialConversion`` is tested
/// on Linux with values of its own.
public protocol AppleIDCredentialValues {
    var user: String { get }
    var state: String? { get }
    var authorizationCode: Data? { get }
    var identityToken: Data? { get }
    var email: String? { get }
    var fullName: PersonNameComponents? { get }
    /// `authorizedScopes`' raw values.
    var authorizedScopeNames: [String] { get }
    /// `realUserStatus`.
    var detectedUserStatus: AppleIDCredential.RealUserStatus { get }
}
