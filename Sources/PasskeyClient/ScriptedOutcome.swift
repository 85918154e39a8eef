/// What a ``ScriptedAuthenticator`` answers to one ceremony.
public enum ScriptedOutcome<Response: Sendable & Hashable>: Sendable, Hashable {
    /// Return this response (for example one recorded from a real device, or made by the software authenticator).
    case respond(Response)
    /// The person dismissed the sheet: ``PasskeyError/Code/cancelled``.
    case cancelled
    /// No usable passkey on this device: ``PasskeyError/Code/noCredentials``.
    case noCredentials
    /// An excluded credential is already here: ``PasskeyError/Code/excludedCredentialExists``.
    case alreadyRegistered
    /// Any other error, exactly as given.
    case failure(PasskeyError)

    /// The response, or the error the outcome stands for.
    func result(_ ceremony: CeremonyKind) throws(PasskeyError) -> Response {
        switch self {
        case .respond(let response): return response
        case .cancelled: throw .cancelled("scripted: the person cancelled the \(ceremony.rawValue)")
        case .noCredentials:
            throw PasskeyError(.noCredentials, stage: .authenticator, "scripted: no credentials for this request")
        case .alreadyRegistered:
            throw PasskeyError(
                .excludedCredentialExists, stage: .authenticator, "scripted: an excluded credential is already registered")
        case .failure(let error): throw error
        }
    }
}
