public import PasskeyWire

/// A test double that answers each ceremony with a canned ``ScriptedOutcome`` and records what it was asked.
///
/// It follows the same rules as real backends (see ``Authenticator``): one ceremony at a time, and cancelling the
/// awaiting task during the optional ``delay`` ends the ceremony with ``PasskeyError/Code/cancelled``. That makes it
/// usable for testing flows and UI state machines without crypto or a device.
public actor ScriptedAuthenticator: Authenticator {
    public var registrationOutcome: ScriptedOutcome<RegistrationResponseJSON>
    public var assertionOutcome: ScriptedOutcome<AuthenticationResponseJSON>
    /// How long the simulated sheet stays up before the outcome is delivered.
    public var delay: Duration
    /// Every registration request received, in order (including refused ones).
    public private(set) var registrationRequests: [RegistrationRequest] = []
    /// Every assertion request received, in order (including refused ones).
    public private(set) var assertionRequests: [AssertionRequest] = []
    /// What the person picks in a combined sheet (``getCredential(_:offering:)``) when the sheet offers it: a password
    /// only when passwords are offered, Sign in with Apple only when it is. Nil, not offered, or `.passkey`: the passkey
    /// of ``assertionOutcome``, which is where passkeys are scripted.
    public var alternativeChoice: SignInCredential?
    /// What every combined sheet offered besides passkeys, in order.
    public private(set) var offeredAlternatives: [SignInAlternatives] = []

    private var gate = CeremonyGate()

    public init(
        registration: ScriptedOutcome<RegistrationResponseJSON> = .failure(ScriptedAuthenticator.notScripted(.registration)),
        assertion: ScriptedOutcome<AuthenticationResponseJSON> = .failure(ScriptedAuthenticator.notScripted(.assertion)),
        delay: Duration = .zero
    ) {
        registrationOutcome = registration
        assertionOutcome = assertion
        self.delay = delay
    }

    /// Replaces the outcome of later registrations.
    public func script(registration outcome: ScriptedOutcome<RegistrationResponseJSON>) { registrationOutcome = outcome }
    /// Replaces the outcome of later assertions.
    public func script(assertion outcome: ScriptedOutcome<AuthenticationResponseJSON>) { assertionOutcome = outcome }
    /// Replaces what the person picks in later combined sheets.
    public func script(alternative choice: SignInCredential?) { alternativeChoice = choice }
    /// Replaces the simulated sheet time.
    public func script(delay: Duration) { self.delay = delay }

    /// The ceremony running now, if any.
    public var ceremonyInProgress: CeremonyKind? { gate.current }

    public func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        registrationRequests.append(request)
        try gate.enter(.registration)
        defer { gate.leave() }
        try await wait()
        return try registrationOutcome.result(.registration)
    }

    public func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        assertionRequests.append(request)
        try gate.enter(.assertion)
        defer { gate.leave() }
        try await wait()
        return try assertionOutcome.result(.assertion)
    }

    public func getCredential(_ request: AssertionRequest, offering alternatives: SignInAlternatives) async throws(PasskeyError)
        -> SignInCredential
    {
        offeredAlternatives.append(alternatives)
        let offered: Bool
        switch alternativeChoice {
        case .password?: offered = alternatives.passwords
        case .appleID?: offered = alternatives.appleID != nil
        case .passkey?, nil: offered = false
        }
        guard offered, let choice = alternativeChoice else { return .passkey(try await getAssertion(request)) }
        assertionRequests.append(request)
        try gate.enter(.assertion)
        defer { gate.leave() }
        try await wait()
        return choice
    }

    private func wait() async throws(PasskeyError) {
        do {
            if delay > .zero { try await Task.sleep(for: delay) }
            try Task.checkCancellation()
        } catch {
            throw .cancelled("scripted: the task running the ceremony was cancelled")
        }
    }

    /// The default outcome: an internal error saying the test forgot to script this ceremony.
    public static func notScripted(_ ceremony: CeremonyKind) -> PasskeyError {
        PasskeyError(.internalError, stage: .authenticator, "ScriptedAuthenticator has no outcome scripted for \(ceremony.rawValue)")
    }
}
