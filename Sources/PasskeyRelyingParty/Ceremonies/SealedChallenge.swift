import Foundation
import PasskeyCore
import PasskeyStorage
import PasskeyWire
import Crypto

/// A sign-in's challenge that carries its own ceremony, so that options write nothing to storage.
///
/// A sign-in's options used to store a challenge record, and its verification consumed it: two durable writes per
/// sign-in, one of them for a ceremony most clients finish within seconds. Everything a sign-in's verification needs of
/// its options fits in the challenge itself: when it was issued and until when it holds, 16 random bytes (the nonce, its
/// single-use key), and for options that named an account, a tag of that account. A MAC under a server secret shared by
/// every instance (``CeremonySecrets``) seals them, so a client can neither forge nor alter one. Single use is still
/// enforced by storage, in the transaction that records the sign-in: the nonce is written as spent there
/// (``ChallengeRepository/spendChallenge(key:expiresAt:now:)``), and of two completions of one ceremony, on any number
/// of instances, exactly one writes it.
///
/// The challenge is visible to the client and sits in the signed client data, so it reveals nothing about the account:
/// the account tag is a MAC of the account's id, and options for a name without an account carry 16 random bytes in
/// its place, which no one without the secret tells from a tag. Whether a name was given at all, the client knows.
///
/// Layout (version 1), base64url without padding in the options:
///
/// | bytes | field |
/// | --- | --- |
/// | 1 | version, 1 |
/// | 1 | flags: bit 0 set when the options named an account (then the account tag follows the nonce) |
/// | 8 | issued at, milliseconds since 1970, big-endian |
/// | 8 | expires at, the same |
/// | 16 | nonce |
/// | 16 | account tag (only with flag bit 0) |
/// | 16 | MAC: HMAC-SHA256 under the sealing key of a domain label and all of the above, its first 16 bytes |
///
/// WebAuthn L3 §13.4.3 asks for at least 16 random bytes in a challenge: the nonce is that; the rest adds none and
/// takes none away.
struct SealedChallenge: Sendable, Hashable {
    static let version: UInt8 = 1
    static let nonceLength = 16
    static let accountTagLength = 16
    static let macLength = 16
    static let identifiedFlag: UInt8 = 1
    /// Bytes before the nonce: version, flags, two times.
    static let headerLength = 18
    static let macLabel = Array("passkey-sign-in-challenge".utf8)
    static let accountLabel = Array("passkey-sign-in-account".utf8)

    /// Whom sign-in options are for.
    enum Account {
        /// No name: any passkey of the RP's (discoverable sign-in, AutoFill).
        case any
        /// The account with this id.
        case named(userID: String)
        /// A name without an account (or whose account has no passkey): sealed as if it had one.
        case unknown
    }

    /// Whole milliseconds, as sealed.
    var issuedAt: Date
    var expiresAt: Date
    var nonce: [UInt8]
    /// For options that named an account: ``accountTag(userID:key:)`` of it, or random bytes when there was none.
    var accountTag: [UInt8]?

    init(issuedAt: Date, expiresAt: Date, nonce: [UInt8], accountTag: [UInt8]?) {
        self.issuedAt = Self.wholeMilliseconds(issuedAt)
        self.expiresAt = Self.wholeMilliseconds(expiresAt)
        self.nonce = nonce
        self.accountTag = accountTag
    }

    /// The key storage records it as spent under, and the options' `challengeKey`.
    var key: String { Base64URL.encode(nonce) }

    /// The tag of the account with `userID`, as options for it carry it.
    static func accountTag(userID: String, key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: accountLabel + Array(userID.utf8), using: key).prefix(accountTagLength))
    }

    /// Whether the options named the account with `userID`. Constant time.
    func admits(userID: String, key: SymmetricKey) -> Bool {
        guard let accountTag else { return true }
        return constantTimeEqual(accountTag, Self.accountTag(userID: userID, key: key))
    }

    /// The challenge as put in the options (base64url).
    func sealed(key: SymmetricKey) -> String {
        var bytes: [UInt8] = [Self.version, accountTag == nil ? 0 : Self.identifiedFlag]
        bytes.reserveCapacity(Self.headerLength + Self.nonceLength + Self.accountTagLength + Self.macLength)
        Self.append(Self.milliseconds(issuedAt), to: &bytes)
        Self.append(Self.milliseconds(expiresAt), to: &bytes)
        bytes += nonce
        if let accountTag { bytes += accountTag }
        bytes += Self.mac(bytes, key: key)
        return Base64URL.encode(bytes)
    }

    /// The challenge `value` sealed under `key`, or nil when it is not one: another format (a stored ceremony's random
    /// challenge), another length, an unknown version or flag, or a MAC that does not verify (altered, or sealed under
    /// another key). Expiry is the caller's to check. Never traps: every length is checked before it is read.
    static func open(_ value: String, key: SymmetricKey) -> SealedChallenge? {
        guard value.utf8.count <= 128, let bytes = Base64URL.decode(value), bytes.count >= headerLength + nonceLength + macLength,
            bytes[0] == version
        else { return nil }
        let flags = bytes[1]
        guard flags & ~identifiedFlag == 0 else { return nil }
        let identified = flags & identifiedFlag != 0
        let expectedLength = headerLength + nonceLength + (identified ? accountTagLength : 0) + macLength
        guard bytes.count == expectedLength else { return nil }
        let body = Array(bytes[0..<(expectedLength - macLength)])
        guard constantTimeEqual(Array(bytes[(expectedLength - macLength)...]), mac(body, key: key)) else { return nil }
        let issued = readUInt64(body, at: 2)
        let expires = readUInt64(body, at: 10)
        // Times a server could have written: after 1970 and before the year 10 000, so that Date holds them exactly.
        guard issued <= maximumMilliseconds, expires <= maximumMilliseconds else { return nil }
        let nonceEnd = headerLength + nonceLength
        return SealedChallenge(
            issuedAt: Date(timeIntervalSince1970: Double(issued) / 1000), expiresAt: Date(timeIntervalSince1970: Double(expires) / 1000),
            nonce: Array(body[headerLength..<nonceEnd]), accountTag: identified ? Array(body[nonceEnd..<(nonceEnd + accountTagLength)]) : nil)
    }

    /// A sealed challenge opened, with the key it was opened with (to check account tags against).
    struct Opened: Sendable {
        var challenge: SealedChallenge
        var key: SymmetricKey

        var identified: Bool { challenge.accountTag != nil }

        /// Whether the options let the account with `userID` sign in.
        func admits(userID: String) -> Bool { challenge.admits(userID: userID, key: key) }
    }

    /// The ceremony as storage and verification see it: keyed by the nonce, with no account id or list (the account
    /// tag stands for them).
    func record(challenge: String) -> ChallengeRecord {
        ChallengeRecord(key: key, challenge: challenge, ceremony: .authentication, createdAt: issuedAt, expiresAt: expiresAt)
    }

    static let maximumMilliseconds: UInt64 = 253_402_300_800_000

    static func mac(_ body: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: macLabel + body, using: key).prefix(macLength))
    }

    static func milliseconds(_ date: Date) -> UInt64 {
        // To the nearest millisecond: a time read back from a challenge (a whole number of milliseconds as a Double of
        // seconds) gives the same number again.
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value > 0 else { return 0 }
        return value >= Double(maximumMilliseconds) ? maximumMilliseconds : UInt64(value)
    }

    static func wholeMilliseconds(_ date: Date) -> Date { Date(timeIntervalSince1970: Double(milliseconds(date)) / 1000) }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func readUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
