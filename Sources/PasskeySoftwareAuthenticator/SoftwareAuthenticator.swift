public import Foundation
public import PasskeyClient
import PasskeyWire

/// An authenticator in software that really creates keys and signs: a stand-in for a phone or security key on Linux,
/// in the CLI, in server tests, and in an iOS app's UI-test mode.
///
/// What it produces is what a platform authenticator produces, so the relying party's own verifier (and any other)
/// accepts it: WebAuthn L3 authenticator data, ES256 (default) or Ed25519 keys, `none` or `packed` self attestation,
/// discoverable credentials that return their user handle, and the origin of a website, an Apple app or an Android
/// app. Its quirks are configurable (``SoftwareAuthenticatorConfiguration``): backup flags, counter, user verification,
/// delay. Like Apple's authenticator it keeps one credential per (RP ID, user handle), honours `excludeCredentials`
/// and `allowCredentials`, runs one ceremony at a time and stops when its task is cancelled.
///
/// Time (`now`) and randomness (`random`) are injected so tests can pin them.
public actor SoftwareAuthenticator: Authenticator {
    public private(set) var configuration: SoftwareAuthenticatorConfiguration
    public nonisolated let store: any CredentialStore
    let now: @Sendable () -> Date
    let random: RandomBytes
    var gate = CeremonyGate()

    public init(
        configuration: SoftwareAuthenticatorConfiguration = SoftwareAuthenticatorConfiguration(),
        store: any CredentialStore = InMemoryCredentialStore(),
        now: @escaping @Sendable () -> Date = { Date() },
        random: RandomBytes = .system
    ) {
        self.configuration = configuration
        self.store = store
        self.now = now
        self.random = random
    }

    /// Changes behaviour for later ceremonies (for example a person who stops verifying). Existing credentials keep
    /// the backup eligibility they were created with.
    public func reconfigure(_ configuration: SoftwareAuthenticatorConfiguration) { self.configuration = configuration }

    /// The ceremony running now, if any.
    public var ceremonyInProgress: CeremonyKind? { gate.current }

    /// Stops if the task was cancelled. Called before every step with a lasting effect.
    func checkCancellation(_ ceremony: CeremonyKind) throws(PasskeyError) {
        if Task.isCancelled { throw .cancelled("the task running the \(ceremony.rawValue) was cancelled") }
    }

    /// The simulated person answering the sheet: waits ``SoftwareAuthenticatorConfiguration/userResponseDelay``,
    /// or the options' timeout if that is shorter (then `timeout`). Cancellation during the wait is `cancelled`.
    func awaitUser(_ ceremony: CeremonyKind, timeoutMilliseconds: Int?) async throws(PasskeyError) {
        let delay = configuration.userResponseDelay
        let limit = timeoutMilliseconds.map { Duration.milliseconds(max(0, $0)) }
        do {
            if let limit, delay > limit {
                try await Task.sleep(for: limit)
                throw PasskeyError(
                    .timeout, stage: .authenticator, "no answer within the options' timeout of \(timeoutMilliseconds ?? 0) ms")
            }
            if delay > .zero { try await Task.sleep(for: delay) }
        } catch let error as PasskeyError {
            throw error
        } catch {
            throw .cancelled("the task running the \(ceremony.rawValue) was cancelled while waiting for the person")
        }
        try checkCancellation(ceremony)
    }

    /// Whether this authenticator may answer a request limited to `attachments`.
    func checkAttachment(_ attachments: AuthenticatorAttachments, requested: AuthenticatorAttachment?) throws(PasskeyError) {
        let mine: AuthenticatorAttachments = configuration.attachment == .crossPlatform ? .securityKey : .platform
        let matchesOptions = requested.map { $0 == configuration.attachment } ?? true
        guard attachments.contains(mine), matchesOptions else {
            throw PasskeyError(
                .notSupported, stage: .authenticator,
                "this authenticator is \(configuration.attachment.rawValue), which the request does not allow")
        }
    }

    /// Whether the configured person satisfies the options' user verification requirement; returns the UV flag.
    func userVerified(requirement: UserVerificationRequirement?) throws(PasskeyError) -> Bool {
        switch configuration.userVerification {
        case .verified: return true
        case .presenceOnly:
            guard requirement != .required else {
                throw PasskeyError(
                    .notSupported, stage: .authenticator,
                    "the options require user verification and this authenticator is configured for presence only")
            }
            return false
        }
    }
}
