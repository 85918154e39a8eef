public import Foundation

/// Settings of the "connect" API: tokens for apps that keep their existing login.
public struct ConnectConfiguration: Sendable {
    /// `iss` of `signedPasskeyData`. Default: the server's first web origin.
    public var tokenIssuer: String?
    /// `aud` of `signedPasskeyData`: what the app's backend checks. Default: the RP ID.
    public var tokenAudience: String?
    /// How long `signedPasskeyData` stays valid, in seconds (default 300). The backend exchanges it at once.
    public var signedDataLifetime: TimeInterval = 300
    /// How long a connect token stays valid, in seconds (default 300).
    public var connectTokenLifetime: TimeInterval = 300
    /// How long a recovery or onboarding link stays valid unless its minter says otherwise, in seconds (default 86 400:
    /// a day, time for a person to find the message it came in).
    public var accountLinkLifetime: TimeInterval = 86_400
    /// How long a rotated-out signing key stays in the JWKS, in seconds (default 86 400). At least the token lifetime
    /// plus the time backends cache the JWKS.
    public var keyOverlap: TimeInterval = 86_400
    /// Who is offered passkeys, and when (the decision endpoints).
    public var rollout = RolloutPolicy()

    public init() {}
}
