import Foundation
import PasskeyCore
import PasskeyStorage
import PasskeyWire
import Crypto

/// A new account's registration challenge that carries its own ceremony, so that registration options write nothing to
/// storage, as sign-in options do not (``SealedChallenge``).
///
/// What a new account's registration needs of its options is small: when they were issued and until when they hold, a
/// single-use nonce, the username and display name the options were made with, and for the system's sign-up sheet the
/// kinds of contact it may offer. The account's user handle and id are not carried: both are derived from the nonce
/// under the sealing key (``userHandle(key:)``, ``userID(key:)``), so the options and the verification agree on them
/// without storing them, and no one without the key can predict them. A MAC under the same server secret as sign-in's
/// (``CeremonySecrets/challengeSealKey``), with a label of its own, seals the whole: a client can neither forge nor alter
/// one, and a sign-in challenge never opens as a registration's, nor the other way round.
///
/// Single use is enforced by storage in the transaction that creates the account: the nonce is written as spent there
/// (``PasskeyStorage/CredentialRepository/register(_:for:spending:now:)``), and of two completions
/// of one ceremony, on any number of instances, exactly one creates the account. A refused attempt spends it too.
///
/// Nothing here is secret from the client, who typed the names. Options that add a passkey to an existing account are
/// still stored: deleting or disabling the account must stop them, and they name a passkey to replace.
///
/// Layout (version 1), base64url without padding in the options:
///
/// | bytes | field |
/// | --- | --- |
/// | 1 | version, 1 |
/// | 1 | flags: bit 0 a username follows, bit 1 a display name follows |
/// | 8 | issued at, milliseconds since 1970, big-endian |
/// | 8 | expires at, the same |
/// | 16 | nonce |
/// | 1 + n | the accepted contact kinds, comma-separated (`email,phone`), after their length in bytes; 0 for none |
/// | 2 + n | the username in UTF-8 after its length in bytes, big-endian (flag bit 0) |
/// | 2 + n | the display name, the same (flag bit 1) |
/// | 16 | MAC: HMAC-SHA256 under the sealing key of a domain label and all of the above, its first 16 bytes |
///
/// A name of 64 characters takes at most 256 bytes (``UsernameRules``, ``DisplayName``), so the longest challenge is
/// under 600 bytes; a typical one about 80.
struct SealedRegistrationChallenge: Sendable, Hashable {
    static let version: UInt8 = 1
    static let usernameFlag: UInt8 = 1
    static let displayNameFlag: UInt8 = 2
    static let macLabel = Array("passkey-registration-challenge".utf8)
    static let userHandleLabel = Array("passkey-registration-user-handle".utf8)
    static let userIDLabel = Array("passkey-registration-user-id".utf8)
    /// The longest base64url text ``open(_:key:)`` decodes: more than the longest challenge sealed.
    static let maximumTextLength = 1_024

    /// Whole milliseconds, as sealed.
    var issuedAt: Date
    var expiresAt: Date
    var nonce: [UInt8]
    /// The new account's name; nil for an anonymous account and for the sign-up sheet's (named by the contact picked).
    var username: String?
    /// The display name to store; nil when the sign-up sheet's options had none (the contact picked stands in).
    var displayName: String?
    var acceptedContacts: [ContactKind]

    init(issuedAt: Date, expiresAt: Date, nonce: [UInt8], username: String?, displayName: String?, acceptedContacts: [ContactKind]) {
        self.issuedAt = SealedChallenge.wholeMilliseconds(issuedAt)
        self.expiresAt = SealedChallenge.wholeMilliseconds(expiresAt)
        self.nonce = nonce
        self.username = username
        self.displayName = displayName
        self.acceptedContacts = acceptedContacts
    }

    /// The key storage records it as spent under. (The options' `challengeKey` is the sealed challenge itself, so that
    /// a response signed over another challenge is told apart from an unknown ceremony: `challenge_mismatch`.)
    var key: String { Base64URL.encode(nonce) }

    /// The new account's user handle (64 bytes, WebAuthn L3 §14.6.1): as unpredictable as random bytes to anyone
    /// without the key, and the same at the options and at the verification.
    func userHandle(key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA512>.authenticationCode(for: Self.userHandleLabel + nonce, using: key))
    }

    /// The new account's id: a version 4 UUID (lowercase) whose random bits come from the nonce under the key.
    func userID(key: SymmetricKey) -> String {
        var bytes = Array(HMAC<SHA256>.authenticationCode(for: Self.userIDLabel + nonce, using: key).prefix(16))
        bytes[6] = bytes[6] & 0x0f | 0x40  // RFC 9562 §5.4: version 4
        bytes[8] = bytes[8] & 0x3f | 0x80  // the variant
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The challenge as put in the options (base64url); nil when a field is too long for its length (never for names
    /// that passed ``UsernameRules`` and ``DisplayName``, and the two contact kinds).
    func sealed(key: SymmetricKey) -> String? {
        let contacts = Array(acceptedContacts.map(\.rawValue).joined(separator: ",").utf8)
        let name = username.map { Array($0.utf8) }
        let display = displayName.map { Array($0.utf8) }
        guard contacts.count <= Int(UInt8.max), (name?.count ?? 0) <= Int(UInt16.max), (display?.count ?? 0) <= Int(UInt16.max) else { return nil }
        let flags = (name == nil ? 0 : Self.usernameFlag) | (display == nil ? 0 : Self.displayNameFlag)
        var bytes: [UInt8] = [Self.version, flags]
        SealedChallenge.append(SealedChallenge.milliseconds(issuedAt), to: &bytes)
        SealedChallenge.append(SealedChallenge.milliseconds(expiresAt), to: &bytes)
        bytes += nonce
        bytes.append(UInt8(contacts.count))
        bytes += contacts
        for field in [name, display] {
            guard let field else { continue }
            bytes += [UInt8(field.count >> 8), UInt8(field.count & 0xff)]
            bytes += field
        }
        bytes += Self.mac(bytes, key: key)
        return Base64URL.encode(bytes)
    }

    /// The challenge `value` sealed under `key`, or nil when it is not one: a sign-in's, a stored ceremony's random
    /// challenge, an unknown version or flag, a length that does not add up, text that is not UTF-8, or a MAC that does
    /// not verify (altered, or sealed under another key). Expiry is the caller's to check. Never traps: every length is
    /// checked before it is read, and no byte may follow the fields.
    static func open(_ value: String, key: SymmetricKey) -> SealedRegistrationChallenge? {
        let fixed = SealedChallenge.headerLength + SealedChallenge.nonceLength
        guard value.utf8.count <= maximumTextLength, let bytes = Base64URL.decode(value),
            bytes.count >= fixed + 1 + SealedChallenge.macLength, bytes[0] == version
        else { return nil }
        let flags = bytes[1]
        guard flags & ~(usernameFlag | displayNameFlag) == 0 else { return nil }
        let bodyEnd = bytes.count - SealedChallenge.macLength
        let body = Array(bytes[0..<bodyEnd])
        guard constantTimeEqual(Array(bytes[bodyEnd...]), mac(body, key: key)) else { return nil }
        let issued = SealedChallenge.readUInt64(body, at: 2)
        let expires = SealedChallenge.readUInt64(body, at: 10)
        guard issued <= SealedChallenge.maximumMilliseconds, expires <= SealedChallenge.maximumMilliseconds else { return nil }
        var reader = FieldReader(bytes: body, offset: fixed)
        guard let contactCount = reader.byte(), let contactText = reader.text(count: Int(contactCount)) else { return nil }
        var username: String?
        var displayName: String?
        if flags & usernameFlag != 0 {
            guard let name = reader.lengthPrefixedText() else { return nil }
            username = name
        }
        if flags & displayNameFlag != 0 {
            guard let name = reader.lengthPrefixedText() else { return nil }
            displayName = name
        }
        guard reader.offset == body.count else { return nil }
        let contacts = contactText.isEmpty ? [] : contactText.split(separator: ",", omittingEmptySubsequences: false).map { ContactKind(rawValue: String($0)) }
        return SealedRegistrationChallenge(
            issuedAt: Date(timeIntervalSince1970: Double(issued) / 1000), expiresAt: Date(timeIntervalSince1970: Double(expires) / 1000),
            nonce: Array(body[SealedChallenge.headerLength..<fixed]), username: username, displayName: displayName, acceptedContacts: contacts)
    }

    /// The ceremony as verification sees it, with the account's derived id and handle; `challenge` is the sealed value.
    func record(challenge: String, key: SymmetricKey) -> ChallengeRecord {
        ChallengeRecord(
            key: self.key, challenge: challenge, ceremony: .registration, userID: userID(key: key), username: username,
            displayName: displayName, userHandle: userHandle(key: key), acceptedContacts: acceptedContacts, createdAt: issuedAt,
            expiresAt: expiresAt)
    }

    static func mac(_ body: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: macLabel + body, using: key).prefix(SealedChallenge.macLength))
    }

    /// Reads length-prefixed fields, every length checked against what is left.
    struct FieldReader {
        let bytes: [UInt8]
        var offset: Int

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func text(count: Int) -> String? {
            guard count >= 0, count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return String(validating: bytes[offset..<(offset + count)], as: UTF8.self)
        }

        mutating func lengthPrefixedText() -> String? {
            guard let high = byte(), let low = byte() else { return nil }
            return text(count: Int(high) << 8 | Int(low))
        }
    }
}
