public import PasskeyAuthenticatorData
public import PasskeyCBOR

/// The authenticator data structure (WebAuthn L3 §6.1), parsed strictly.
///
/// Layout: rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ attestedCredentialData (if AT) ‖ extensions (if ED).
/// Parsing rejects data shorter than 37 bytes, attested credential data without AT (and AT without it),
/// an extensions map without ED (and ED without one), and any leftover bytes.
///
/// - SeeAlso: [WebAuthn L3 §6.1 Authenticator Data](https://www.w3.org/TR/webauthn-3/#sctn-authenticator-data)
public struct AuthenticatorData: Sendable, Hashable {
    /// Flag bits (§6.1 table), the type the SDK and the authenticators write with.
    public typealias Flags = AuthenticatorDataFlags

    static let rpIDHashLength = AuthenticatorDataLayout.rpIDHashLength
    static let minimumLength = AuthenticatorDataLayout.minimumLength

    /// The exact bytes received; signatures are verified over these.
    public let bytes: [UInt8]
    /// SHA-256 of the RP ID the credential is scoped to.
    public let rpIDHash: [UInt8]
    public let flags: Flags
    /// The signature counter (0 for authenticators without one, such as iCloud Keychain).
    public let signCount: UInt32
    /// Present when `flags` has AT (registration).
    public let attestedCredentialData: AttestedCredentialData?
    /// Authenticator extension outputs, present when `flags` has ED.
    public let extensions: CBORMap?

    public var userPresent: Bool { flags.contains(.userPresent) }
    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backupState: Bool { flags.contains(.backupState) }

    /// Parses authenticator data.
    /// - Throws: `authenticator_data_malformed` or `cbor_malformed`, never traps.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= Self.minimumLength else {
            throw WebAuthnError(
                .authenticatorDataMalformed, "authenticator data is shorter than \(Self.minimumLength) bytes",
                expected: "≥ \(Self.minimumLength) bytes", received: "\(bytes.count) bytes")
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<Self.rpIDHashLength])
        let flags = Flags(rawValue: bytes[AuthenticatorDataLayout.flagsOffset])
        self.flags = flags
        let counterStart = AuthenticatorDataLayout.signCountOffset
        signCount = bytes[counterStart..<(counterStart + AuthenticatorDataLayout.signCountLength)].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = Self.minimumLength

        if flags.contains(.attestedCredentialData) {
            let (data, used) = try AttestedCredentialData.parse(bytes[offset...])
            attestedCredentialData = data
            offset += used
        } else {
            attestedCredentialData = nil
        }

        if flags.contains(.extensionData) {
            guard offset < bytes.count else {
                throw WebAuthnError(.authenticatorDataMalformed, "the ED flag is set but there is no extensions map")
            }
            let decoded: (value: CBORValue, length: Int)
            do { decoded = try CBORDecoder().decodePrefix(bytes[offset...]) } catch {
                throw WebAuthnError(error, decoding: "authenticator extensions")
            }
            guard case .map(let map) = decoded.value else {
                throw WebAuthnError(
                    .authenticatorDataMalformed, "authenticator extensions must be a CBOR map",
                    received: decoded.value.kindName)
            }
            extensions = map
            offset += decoded.length
        } else {
            extensions = nil
        }

        guard offset == bytes.count else {
            let hint = flags.contains(.attestedCredentialData) || flags.contains(.extensionData)
                ? "" : " (AT and ED are clear)"
            throw WebAuthnError(
                .authenticatorDataMalformed, "\(bytes.count - offset) unexpected bytes follow the authenticator data\(hint)",
                expected: "\(offset) bytes", received: "\(bytes.count) bytes")
        }
    }

    /// Names of the authenticator extension outputs (text keys of the extensions map).
    public var extensionIdentifiers: [String] { extensions?.entries.compactMap(\.key.textValue) ?? [] }
}

/// Attested credential data (WebAuthn L3 §6.5.2): AAGUID ‖ credentialIdLength (2) ‖ credentialId ‖ credentialPublicKey (COSE).
public struct AttestedCredentialData: Sendable, Hashable {
    /// Credential IDs longer than this are refused (§7.1 step 25; the W3C test vectors use exactly 1023).
    public static let maximumCredentialIDLength = 1023

    public let aaguid: AAGUID
    public let credentialID: [UInt8]
    /// The COSE_Key exactly as encoded in authenticator data: store these bytes.
    public let credentialPublicKeyBytes: [UInt8]
    public let credentialPublicKey: COSEKey

    /// Parses from the start of `bytes` and returns the number of bytes used; the COSE key's length is known only by decoding it.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) -> (AttestedCredentialData, Int) {
        let aaguidLength = AuthenticatorDataLayout.aaguidLength
        let lengthFieldLength = AuthenticatorDataLayout.credentialIDLengthLength
        guard bytes.count >= AuthenticatorDataLayout.attestedCredentialDataHeaderLength else {
            throw WebAuthnError(
                .authenticatorDataMalformed, "the AT flag is set but attested credential data is missing or truncated",
                expected: "≥ \(AuthenticatorDataLayout.attestedCredentialDataHeaderLength) bytes", received: "\(bytes.count) bytes")
        }
        var index = bytes.startIndex
        let aaguid = AAGUID(uncheckedBytes: Array(bytes[index..<(index + aaguidLength)]))
        index += aaguidLength
        let idLength = Int(bytes[index]) << 8 | Int(bytes[index + 1])
        index += lengthFieldLength
        guard idLength <= maximumCredentialIDLength else {
            throw WebAuthnError(
                .credentialIDTooLong, "credential ID is longer than \(maximumCredentialIDLength) bytes",
                expected: "≤ \(maximumCredentialIDLength)", received: "\(idLength)")
        }
        guard idLength > 0 else {
            throw WebAuthnError(.authenticatorDataMalformed, "credential ID is empty")
        }
        guard bytes.endIndex - index >= idLength else {
            throw WebAuthnError(
                .authenticatorDataMalformed, "credential ID length exceeds the authenticator data",
                expected: "\(idLength) bytes", received: "\(bytes.endIndex - index) bytes")
        }
        let credentialID = Array(bytes[index..<(index + idLength)])
        index += idLength
        guard index < bytes.endIndex else {
            throw WebAuthnError(.authenticatorDataMalformed, "credential public key is missing")
        }
        let decoded: (value: CBORValue, length: Int)
        do { decoded = try CBORDecoder().decodePrefix(bytes[index...]) } catch {
            throw WebAuthnError(error, decoding: "credential public key")
        }
        let keyBytes = Array(bytes[index..<(index + decoded.length)])
        let key = try COSEKey(cbor: decoded.value)
        index += decoded.length
        let data = AttestedCredentialData(
            aaguid: aaguid, credentialID: credentialID, credentialPublicKeyBytes: keyBytes, credentialPublicKey: key)
        return (data, index - bytes.startIndex)
    }
}
