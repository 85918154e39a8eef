import Crypto
import Foundation
import PasskeyCore
import PasskeyStorage

/// The server secrets ceremonies use, read from storage once per process and kept.
///
/// A secret (``SecretRepository``) is created once, with the data, and never changes: every instance of a deployment
/// reads the same value, so keeping it in memory is exact. Both are 32 bytes, and move with an export that includes
/// secrets. Reading it on every request is not free: on SQLite the
/// get-or-create is a write transaction.
public final class CeremonySecrets: @unchecked Sendable {
    /// The key that derives made-up credential IDs for names without an account (``CeremonyService/fakeCredentials(for:)``).
    public static let fakeCredentialKey = "fake-credential-key"
    /// The key that seals sign-in challenges (``SealedChallenge``).
    public static let challengeSealKey = "challenge-seal-key"
    /// The key that seals the OpenID Provider's authorization requests while the sign-in page is open
    /// (``SealedAuthorizationRequest``).
    public static let openIDRequestSealKey = "oidc-request-seal-key"
    /// The OpenID Provider's RSA key for RS256 ID tokens, as PKCS #1 DER (``OpenIDSigner``).
    public static let openIDSigningKey = "oidc-rs256-key"

    // Guarded by `lock`.
    private let lock = NSLock()
    private var keys: [String: SymmetricKey] = [:]

    /// The secret named `name` as a key: from memory, or read (created on first use) from `repository` and kept.
    func key(_ name: String, in repository: some SecretRepository) async throws(StorageError) -> SymmetricKey {
        if let known = lock.withLock({ keys[name] }) { return known }
        let secret = try await repository.secret(named: name, orCreate: { RandomSource.system.bytes(32) })
        let key = SymmetricKey(data: secret)
        // Concurrent first reads agree (the repository's get-or-create is atomic), so either may be kept.
        lock.withLock { keys[name] = key }
        return key
    }
}
