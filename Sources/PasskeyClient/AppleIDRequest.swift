/// A Sign in with Apple request's options (Apple's `ASAuthorizationAppleIDRequest`).
public struct AppleIDRequest: Sendable, Hashable {
    /// What the app asks to be told at the first sign-in: a name, an email address. Apple gives them once, when the
    /// person first uses Sign in with Apple with the app; a returning person's credential carries neither.
    public var scopes: [AppleIDScope]
    /// Bound into the identity token (`nonce` claim), so the app's backend can tell this token from a replayed one.
    public var nonce: String?
    /// Handed back as it is in the credential, for the app to match the answer to its request.
    public var state: String?
    /// The Apple user identifier the app already knows, when it signs a known person in again.
    public var user: String?

    public init(scopes: [AppleIDScope] = [], nonce: String? = nil, state: String? = nil, user: String? = nil) {
        self.scopes = scopes
        self.nonce = nonce
        self.state = state
        self.user = user
    }
}
