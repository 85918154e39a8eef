import PasskeyCore
import X509
import SwiftASN1

/// Object identifiers the attestation formats look for.
enum AttestationOID {
    /// id-fido-gen-ce-aaguid (WebAuthn L3 §8.2.1, FIDO Metadata): the AAGUID of the authenticator model.
    static let fidoAAGUID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]
    /// Apple anonymous attestation nonce (WebAuthn L3 §8.8).
    static let appleNonce: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]
    /// Android Keystore key description (WebAuthn L3 §8.4, Android key attestation schema).
    static let androidKeyDescription: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17]
    /// tcg-kp-AIKCertificate: the extended key usage of TPM attestation identity key certificates (§8.3.1).
    static let tcgAIKCertificate: ASN1ObjectIdentifier = [2, 23, 133, 8, 3]
    /// tcgAtTpmManufacturer, tcgAtTpmModel, tcgAtTpmVersion (TCG EK Credential Profile §3.2.9).
    static let tcgTPMManufacturer: ASN1ObjectIdentifier = [2, 23, 133, 2, 1]
    static let tcgTPMModel: ASN1ObjectIdentifier = [2, 23, 133, 2, 2]
    static let tcgTPMVersion: ASN1ObjectIdentifier = [2, 23, 133, 2, 3]
    /// certificatePolicies (RFC 5280 §4.2.1.4).
    static let certificatePolicies: ASN1ObjectIdentifier = [2, 5, 29, 32]
}

/// Basic constraints as read by the attestation code (RFC 5280 §4.2.1.9).
struct AttestationBasicConstraints: Sendable, Hashable {
    let isCA: Bool
    let pathLength: Int?
}

extension Certificate {
    /// The basic constraints extension, read leniently; `nil` when absent.
    ///
    /// swift-certificates' reader is strict DER, which forbids encoding the DEFAULT `cA FALSE`; the Chrome virtual
    /// authenticator does exactly that (`30 03 01 01 00`). BER allows it and it means the same thing, so this reader
    /// accepts an explicit boolean of either value.
    func attestationBasicConstraints() throws(WebAuthnError) -> AttestationBasicConstraints? {
        guard let ext = extensions[oid: .X509ExtensionID.basicConstraints] else { return nil }
        let malformed = WebAuthnError(.attestationInvalid, "certificate basic constraints extension is malformed")
        let root: ASN1Node
        do { root = try BER.parse(ext.value) } catch { throw malformed }
        guard root.identifier == .sequence, case .constructed(let children) = root.content else { throw malformed }
        var isCA = false
        var pathLength: Int?
        var iterator = children.makeIterator()
        var next = iterator.next()
        if let node = next, node.identifier == .boolean {
            guard case .primitive(let bytes) = node.content, bytes.count == 1 else { throw malformed }
            isCA = bytes.first != 0
            next = iterator.next()
        }
        if let node = next, node.identifier == .integer {
            do { pathLength = try Int(derEncoded: node) } catch { throw malformed }
            guard let length = pathLength, length >= 0 else { throw malformed }
            next = iterator.next()
        }
        guard next == nil else { throw malformed }
        return AttestationBasicConstraints(isCA: isCA, pathLength: pathLength)
    }

    /// The id-fido-gen-ce-aaguid extension: its 16-byte value and whether it is marked critical; `nil` when absent.
    ///
    /// The extension value is an OCTET STRING wrapping the 16 AAGUID bytes (WebAuthn L3 §8.2.1).
    func fidoAAGUIDExtension() throws(WebAuthnError) -> (aaguid: [UInt8], critical: Bool)? {
        guard let ext = extensions[oid: AttestationOID.fidoAAGUID] else { return nil }
        let aaguidLength = 16
        let value: ASN1OctetString
        do { value = try ASN1OctetString(derEncoded: ext.value) } catch {
            throw WebAuthnError(.attestationInvalid, "id-fido-gen-ce-aaguid extension is not an OCTET STRING")
        }
        guard value.bytes.count == aaguidLength else {
            throw WebAuthnError(
                .attestationInvalid, "id-fido-gen-ce-aaguid extension does not hold 16 bytes", expected: "16 bytes",
                received: "\(value.bytes.count) bytes")
        }
        return (Array(value.bytes), ext.critical)
    }

    /// Checks the id-fido-gen-ce-aaguid extension, when present, against the AAGUID in authenticator data.
    func checkFIDOAAGUIDExtension(matches aaguid: AAGUID, format: String) throws(WebAuthnError) {
        guard let ext = try fidoAAGUIDExtension() else { return }
        // WebAuthn L3 §8.2.1: the id-fido-gen-ce-aaguid extension "MUST NOT be marked as critical".
        guard !ext.critical else {
            throw WebAuthnError(.attestationInvalid, "\(format) attestation certificate marks id-fido-gen-ce-aaguid critical")
        }
        // WebAuthn L3 §8.2 step 2 / §8.3 step 3: the extension value must match the aaguid in authenticatorData.
        guard constantTimeEqual(ext.aaguid, aaguid.bytes) else {
            throw WebAuthnError(
                .attestationInvalid, "\(format) attestation certificate AAGUID extension does not match the authenticator data AAGUID",
                expected: aaguid.description, received: AAGUID(bytes: ext.aaguid)?.description)
        }
    }

    /// Every attribute of a distinguished name, flattened across its RDNs.
    static func attributes(of name: DistinguishedName) -> [RelativeDistinguishedName.Attribute] {
        name.flatMap { Array($0) }
    }

    /// The string values of the attributes of type `oid` in `name`.
    static func strings(_ oid: ASN1ObjectIdentifier, in name: DistinguishedName) -> [String] {
        attributes(of: name).filter { $0.type == oid }.map { String($0.value) ?? $0.value.description }
    }
}

extension Certificate {
    /// The host names the certificate is issued to: the dNSNames of its subjectAltName, or its subject CN when it has
    /// no subjectAltName (RFC 6125 §6.4.4); nil when the subjectAltName is malformed.
    var hostnames: [String]? {
        let names: SubjectAlternativeNames?
        do { names = try extensions.subjectAlternativeNames } catch { return nil }
        guard let names else { return Certificate.strings(.RDNAttributeType.commonName, in: subject) }
        return names.compactMap { if case .dnsName(let host) = $0 { host } else { nil } }
    }
}
