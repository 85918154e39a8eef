public import Foundation

/// The OpenID Provider's state: its clients, and the codes, tokens and browser sessions it issues. Stored, not kept in
/// memory, so that a code made on one instance is exchanged on another and a reused one is caught on any.
public protocol OpenIDRepository: Sendable {
    /// Adds a client. `recordExists` when its id exists.
    func addOpenIDClient(_ client: OpenIDClientRecord) async throws(StorageError)
    /// Every client, oldest first.
    func openIDClients() async throws(StorageError) -> [OpenIDClientRecord]
    func openIDClient(id: String) async throws(StorageError) -> OpenIDClientRecord?
    /// Stores every field of the client. `notFound` when it is gone.
    func updateOpenIDClient(_ client: OpenIDClientRecord) async throws(StorageError)
    /// Deletes the client with its codes and tokens. `notFound` when it is gone.
    func deleteOpenIDClient(id: String) async throws(StorageError)

    func saveOpenIDCode(_ code: OpenIDCodeRecord) async throws(StorageError)
    /// Exchanges the code with hash `hash`, in one transaction: an unused, unexpired code is marked used and returned;
    /// a used one revokes (deletes) every token of its family and is reported reused. Of concurrent exchanges of one
    /// code, exactly one redeems it.
    func redeemOpenIDCode(hash: [UInt8], now: Date) async throws(StorageError) -> OpenIDCodeRedemption

    /// Stores tokens issued together (an access token and a refresh token).
    func saveOpenIDTokens(_ tokens: [OpenIDTokenRecord]) async throws(StorageError)
    /// The unexpired, unused token of `kind` with hash `hash`.
    func openIDToken(hash: [UInt8], kind: OpenIDTokenKind, now: Date) async throws(StorageError) -> OpenIDTokenRecord?
    /// Exchanges the refresh token with hash `hash`, in one transaction: a current one is marked used and `replacements`
    /// are stored; a used one revokes its family (RFC 9700 §4.14.2). Of concurrent exchanges, exactly one rotates.
    func rotateOpenIDRefreshToken(hash: [UInt8], replacements: [OpenIDTokenRecord], now: Date) async throws(StorageError) -> OpenIDRefreshRotation
    /// Deletes every token and code of a family; returns how many tokens.
    @discardableResult
    func revokeOpenIDFamily(id: String) async throws(StorageError) -> Int

    func saveOpenIDSession(_ session: OpenIDSessionRecord) async throws(StorageError)
    /// The unexpired session with hash `hash`.
    func openIDSession(hash: [UInt8], now: Date) async throws(StorageError) -> OpenIDSessionRecord?
    func deleteOpenIDSession(hash: [UInt8]) async throws(StorageError)

    /// Deletes expired codes, tokens and sessions; returns how many rows.
    @discardableResult
    func purgeOpenIDRecords(now: Date) async throws(StorageError) -> Int
}
