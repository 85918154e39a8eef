public import Foundation
public import PasskeyWire

/// The choices a ``CeremonyService`` makes besides what its ``PasskeyCore/RelyingParty`` verifies: how long options
/// live, whether anyone may make an account, how many ceremonies may be pending. Secure defaults.
public struct CeremonyConfiguration: Sendable {
    /// The RP ID the passkeys belong to; also what sign-in answers give clients for the Signal API.
    public var rpID: String
    /// Seconds options stay valid (the options' `timeout` too). Default 60.
    public var challengeTTL: TimeInterval = 60
    /// Attestation asked for in registration options. Default `none`.
    public var attestation: AttestationConveyancePreference = .none
    /// Whether anyone may make an account through registration options without a username's authorization. Off, new
    /// accounts come only from an app's backend (connect tokens); adding passkeys to accounts still works.
    public var publicRegistration = true
    /// Stored ceremonies in progress kept at most (expired ones are purged first): options that add a passkey to an
    /// existing account. Past it their options are refused with `busy`, so storage stays bounded whatever clients do.
    /// Sign-in and new-account registration options store nothing (``SealedChallenge``,
    /// ``SealedRegistrationChallenge``) and are never refused for it. Default 100 000.
    public var maximumPendingChallenges = 100_000
    /// Whether a sign-in with a passkey this server does not hold answers with what the client needs to tell the
    /// device's passkey manager to forget it (``UnknownCredentialSignal``). On by default. Turn it off when another
    /// server with its own database shares the RP ID (a staging server on `example.com`): a passkey of the other one,
    /// tried here, would otherwise be removed from the person's device.
    public var signalUnknownCredentials = true

    public init(rpID: String) { self.rpID = rpID }
}
