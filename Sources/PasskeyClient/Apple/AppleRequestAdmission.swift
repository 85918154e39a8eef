/// Whether a new AuthenticationServices request may start while another one of the app is pending.
///
/// Apple runs one authorization per app: a second controller fails with "Request already in progress" (1004). The
/// ``Authenticator`` rule is "refuse the newcomer", and it holds for everything the person is answering. The one
/// exception is a pending **AutoFill** request: it shows nothing and merely waits for the person to focus the
/// username field, so a new request (the person tapped "Sign in with a passkey", or the screen started a fresh
/// AutoFill with a new challenge) ends it with ``PasskeyError/Code/cancelled`` and takes its place. Without this, every
/// screen with AutoFill would have to cancel it by hand before any other passkey action.
public enum AppleRequestAdmission: String, Sendable, Hashable {
    /// Nothing is pending: start.
    case start
    /// A pending AutoFill request is cancelled first, then the new one starts.
    case replacePendingAutoFill
    /// A request the person is answering is running: refuse with ``PasskeyError/Code/ceremonyInProgress``.
    case refuse

    /// The decision for a new request while `pending` (its presentation, or `nil`) runs.
    public static func decide(pending: ApplePresentation?) -> AppleRequestAdmission {
        switch pending {
        case nil: .start
        case .autoFill: .replacePendingAutoFill
        case .modal, .immediate, .conditionalRegistration: .refuse
        }
    }
}
