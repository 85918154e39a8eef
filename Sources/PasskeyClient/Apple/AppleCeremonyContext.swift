/// What the adapter knows about a request when AuthenticationServices ends it with an error: the mapping to
/// ``PasskeyError`` needs it, because the same Apple code means different things in different situations.
public struct AppleCeremonyContext: Sendable, Hashable {
    public var ceremony: CeremonyKind
    public var presentation: ApplePresentation
    /// The registration named credentials in `excludeCredentials`.
    public var hadExcludedCredentials: Bool
    /// From `performRequests…` to the delegate's error.
    public var elapsed: Duration
    /// AuthenticationServices asked for a presentation anchor: it meant to show something. A weak signal (iOS 26 asks
    /// even when it then finds no credential), used only together with ``elapsed``.
    public var presentationAnchorRequested: Bool
    /// The app ended the request itself: its task was cancelled, or a newer request replaced a pending AutoFill one.
    public var cancelledByApp: Bool
    /// The sheet offered Sign in with Apple beside passkeys (``AppleRequestPlan/signIn(_:offering:on:)``): Apple fails
    /// the whole request when the app lacks that capability.
    public var offeredAppleID: Bool

    public init(
        ceremony: CeremonyKind, presentation: ApplePresentation, hadExcludedCredentials: Bool = false, elapsed: Duration,
        presentationAnchorRequested: Bool = false, cancelledByApp: Bool = false, offeredAppleID: Bool = false
    ) {
        self.ceremony = ceremony
        self.presentation = presentation
        self.hadExcludedCredentials = hadExcludedCredentials
        self.elapsed = elapsed
        self.presentationAnchorRequested = presentationAnchorRequested
        self.cancelledByApp = cancelledByApp
        self.offeredAppleID = offeredAppleID
    }
}
