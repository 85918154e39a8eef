public import PasskeyWire

/// Who the relying party is and which origins and RP IDs it accepts: the expectations both ceremonies check.
///
/// A website and its iOS app share one RP ID (the parent domain). The web origin is `https://www.example.com`;
/// an iOS app's passkey ceremonies report `https://<rp id>`; an Android app's report `android:apk-key-hash:<base64url
/// SHA-256 of the signing certificate>`. List them all in ``origins``.
public struct RelyingParty: Sendable {
    /// The RP ID sent in options (a registrable domain suffix of the origins, for example `example.com`).
    public var id: String { didSet { acceptedIDHashes = Self.hashes([id] + additionalIDs) } }
    /// Shown by some authenticators at registration.
    public var name: String
    /// Further RP IDs whose hash is accepted in authenticator data (for example while moving to a new domain).
    public var additionalIDs: [String] { didSet { acceptedIDHashes = Self.hashes([id] + additionalIDs) } }
    /// Origins accepted in client data, compared exactly (§13.4.9).
    public var origins: [String]
    /// Accept ceremonies run inside cross-origin iframes (`crossOrigin: true`). Default: `false`.
    public var allowCrossOrigin: Bool
    /// Top-level origins accepted when `topOrigin` is present (only consulted when ``allowCrossOrigin`` is `true`).
    public var topOrigins: [String]
    public var policy: CeremonyPolicy
    /// Attestation formats accepted at registration.
    public var attestationVerifiers: AttestationVerifiers

    public init(
        id: String, name: String? = nil, origins: [String], additionalIDs: [String] = [], allowCrossOrigin: Bool = false,
        topOrigins: [String] = [], policy: CeremonyPolicy = .default, attestationVerifiers: AttestationVerifiers = .noneOnly
    ) {
        self.id = id
        self.name = name ?? id
        self.origins = origins
        self.additionalIDs = additionalIDs
        self.allowCrossOrigin = allowCrossOrigin
        self.topOrigins = topOrigins
        self.policy = policy
        self.attestationVerifiers = attestationVerifiers
        acceptedIDHashes = Self.hashes([id] + additionalIDs)
    }

    /// SHA-256 of every accepted RP ID, kept in step with ``id`` and ``additionalIDs`` (computed once, not per request).
    private var acceptedIDHashes: [[UInt8]]

    private static func hashes(_ ids: [String]) -> [[UInt8]] { ids.map { sha256(Array($0.utf8)) } }

    /// Every accepted RP ID, primary first.
    public var acceptedIDs: [String] { [id] + additionalIDs }

    /// The accepted RP ID a sign-in response's authenticator data is scoped to (its `rpIdHash`, WebAuthn L3 §6.1), or
    /// `nil` when it names another RP ID or cannot be read. Nothing is verified: this only says which RP ID the
    /// authenticator meant, for a response whose credential is not stored (to decide whether telling the client the
    /// credential is unknown concerns this relying party's passkeys at all).
    public func scopedRPID(of response: AuthenticationResponseJSON) -> String? {
        guard let bytes = Base64URL.decode(response.response.authenticatorData), let authData = try? AuthenticatorData(bytes: bytes) else {
            return nil
        }
        return rpID(matchingHash: authData.rpIDHash)
    }

    /// The accepted RP ID whose SHA-256 is `hash`, if any.
    func rpID(matchingHash hash: [UInt8]) -> String? {
        for (candidate, candidateHash) in zip(acceptedIDs, acceptedIDHashes) where constantTimeEqual(candidateHash, hash) {
            return candidate
        }
        return nil
    }
}
