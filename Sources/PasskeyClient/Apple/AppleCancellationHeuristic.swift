/// Telling "the person cancelled" from "no passkey on this device" when Apple says `canceled` (1001) for both.
///
/// Apple reports a sign-in that found nothing to offer as 1001, like a dismissed sheet, and offers no locale-
/// independent way to tell them apart. What the field has learned, encoded as pure rules:
///
/// 1. **We cancelled it** (task cancellation, a newer request replacing AutoFill): the app knows; never ambiguous.
/// 2. **1005 `notInteractive` under immediate mediation**: nothing could be offered without a sheet → no credentials.
/// 3. **1001 under immediate mediation with a failure reason** (`NSLocalizedFailureReasonErrorKey`; iOS 26 sets it when
///    nothing matched) → no credentials.
/// 4. **1001 under immediate mediation faster than a person can dismiss a sheet** (``fastestDismissal``) and without
///    the anchor being requested → no credentials (iOS 16–18 answer in milliseconds). Fast but with the anchor
///    requested → ambiguous.
/// 5. **1001 from a modal sign-in**: the sheet always appears (it offers other devices), so the person cancelled; if it
///    came faster than ``fastestDismissal`` we cannot be sure → ambiguous.
/// 6. **1001 from AutoFill or a registration** → the person (or, for a conditional registration, the system) declined.
///
/// Ambiguous outcomes are ``PasskeyError/Code/cancelled`` with ``PasskeyError/isAmbiguousCancellation`` set: show
/// nothing, but do not conclude there is no passkey.
public enum AppleCancellationHeuristic {
    /// The sheet's animation alone takes about half a second; reading it and tapping Cancel takes longer. A 1001 that
    /// arrives sooner did not come from a person answering a sheet.
    public static let fastestDismissal: Duration = .milliseconds(800)

    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        case cancelledByApp
        case cancelledByPerson
        case declinedBySystem
        case noCredentials
        case ambiguous
    }

    /// The verdict for a 1001 (`canceled`) or 1005 (`notInteractive`) error in `context`.
    public static func verdict(
        for error: ApplePlatformError, in context: AppleCeremonyContext, fastestDismissal: Duration = fastestDismissal
    ) -> Verdict {
        if context.cancelledByApp { return .cancelledByApp }
        let fast = context.elapsed < fastestDismissal
        switch (error.authorizationCode, context.presentation) {
        case (.notInteractive, .immediate):
            return .noCredentials
        case (.canceled, .immediate):
            if error.failureReason?.isEmpty == false { return .noCredentials }
            if fast { return context.presentationAnchorRequested ? .ambiguous : .noCredentials }
            return .cancelledByPerson
        case (.canceled, .modal):
            return context.ceremony == .assertion && fast ? .ambiguous : .cancelledByPerson
        case (.canceled, .conditionalRegistration):
            return .declinedBySystem
        default:
            return .cancelledByPerson
        }
    }
}
