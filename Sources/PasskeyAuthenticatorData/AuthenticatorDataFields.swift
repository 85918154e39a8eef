public import PasskeyCBOR

/// Authenticator data read leniently, for a client that only needs its fields (the credential's key and algorithm for
/// the L3 JSON's `getPublicKey()`): no check the relying party makes is made here, and nothing here is trusted.
/// Malformed data gives nil, never a trap.
public struct AuthenticatorDataFields: Sendable, Hashable {
    public let rpIDHash: [UInt8]
    public let flags: AuthenticatorDataFlags
    public let signCount: UInt32
    /// With the AT flag and data long enough for it.
    public let attestedCredential: AttestedCredential?

    public struct AttestedCredential: Sendable, Hashable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        /// The COSE_Key's bytes, as long as the CBOR item is.
        public let credentialPublicKey: [UInt8]
        /// The same key, decoded.
        public let credentialPublicKeyValue: CBORValue
    }

    public init?(bytes: [UInt8]) {
        typealias Layout = AuthenticatorDataLayout
        guard let signCount = Layout.signCount(bytes) else { return nil }
        rpIDHash = Array(bytes[0..<Layout.rpIDHashLength])
        flags = AuthenticatorDataFlags(rawValue: bytes[Layout.flagsOffset])
        self.signCount = signCount
        attestedCredential = flags.contains(.attestedCredentialData) ? Self.attested(bytes[Layout.minimumLength...]) : nil
    }

    /// The attested credential data at the start of `data`: AAGUID, the credential ID by its two-byte length, and the
    /// COSE key as far as its CBOR item goes.
    static func attested(_ data: ArraySlice<UInt8>) -> AttestedCredential? {
        typealias Layout = AuthenticatorDataLayout
        guard data.count >= Layout.attestedCredentialDataHeaderLength else { return nil }
        let start = data.startIndex
        let lengthStart = start + Layout.aaguidLength
        let idLength = Int(data[lengthStart]) << 8 | Int(data[lengthStart + 1])
        let idStart = start + Layout.attestedCredentialDataHeaderLength
        guard data.endIndex - idStart > idLength else { return nil }
        let keyStart = idStart + idLength
        guard let key = try? CBORDecoder().decodePrefix(data[keyStart...]) else { return nil }
        return AttestedCredential(
            aaguid: Array(data[start..<lengthStart]), credentialID: Array(data[idStart..<keyStart]),
            credentialPublicKey: Array(data[keyStart..<(keyStart + key.length)]), credentialPublicKeyValue: key.value)
    }
}
