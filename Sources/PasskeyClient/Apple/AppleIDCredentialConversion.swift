import Foundation

/// Apple's Sign in with Apple credential → ``AppleIDCredential``: the tokens as text (a JWT and a code are ASCII), so a
/// credential that is not what Apple documents is refused here rather than forwarded to the app's backend garbled.
public enum AppleIDCredentialConversion {
    public static func credential(_ values: some AppleIDCredentialValues) throws(PasskeyError) -> AppleIDCredential {
        guard !values.user.isEmpty else {
            throw PasskeyError(.invalidResponse, stage: .authenticator, "the Sign in with Apple credential has no user identifier")
        }
        return AppleIDCredential(
            user: values.user, identityToken: try text(values.identityToken, "identityToken"),
            authorizationCode: try text(values.authorizationCode, "authorizationCode"), email: values.email, fullName: values.fullName,
            state: values.state, authorizedScopes: values.authorizedScopeNames.map(AppleIDScope.init(rawValue:)),
            realUserStatus: values.detectedUserStatus)
    }

    /// A token's bytes as text: printable ASCII, as a JWT and an authorization code are; nil when absent or empty.
    static func text(_ data: Data?, _ member: String) throws(PasskeyError) -> String? {
        guard let data, !data.isEmpty else { return nil }
        guard data.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            throw PasskeyError(.invalidResponse, stage: .authenticator, "the Sign in with Apple credential's \(member) is not printable ASCII")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
