import Crypto
import Foundation
public import PasskeyCore
public import X509

/// The attestation roots of each authenticator model a verified Metadata BLOB describes
/// (`attestationRootCertificates` of its statements), found by AAGUID, or for U2F authenticators (whose AAGUID is
/// zero) by the key identifier of their attestation certificate.
public struct AuthenticatorModelRoots: Sendable {
    private let byAAGUID: [AAGUID: [Certificate]]
    private let byKeyIdentifier: [String: [Certificate]]

    public static let empty = AuthenticatorModelRoots(byAAGUID: [:], byKeyIdentifier: [:])

    private init(byAAGUID: [AAGUID: [Certificate]], byKeyIdentifier: [String: [Certificate]]) {
        self.byAAGUID = byAAGUID
        self.byKeyIdentifier = byKeyIdentifier
    }

    /// The roots of every model in `blob` whose statement names some.
    public init(_ blob: MetadataBLOB) {
        var byAAGUID: [AAGUID: [Certificate]] = [:]
        var byKeyIdentifier: [String: [Certificate]] = [:]
        for entry in blob.entries {
            guard let roots = entry.metadataStatement?.attestationRootCertificates, !roots.isEmpty else { continue }
            if let text = entry.aaguid, let aaguid = AAGUID(text) { byAAGUID[aaguid] = roots }
            for identifier in entry.attestationCertificateKeyIdentifiers { byKeyIdentifier[identifier] = roots }
        }
        self.init(byAAGUID: byAAGUID, byKeyIdentifier: byKeyIdentifier)
    }

    public var isEmpty: Bool { byAAGUID.isEmpty && byKeyIdentifier.isEmpty }

    /// The roots for the model `aaguid`; with the zero AAGUID, those for the model of the attestation certificate.
    public func roots(aaguid: AAGUID, leaf: Certificate?) -> [Certificate] {
        guard !isEmpty else { return [] }
        if aaguid != AAGUID.zero { return byAAGUID[aaguid] ?? [] }
        guard let leaf, let identifier = Self.keyIdentifier(of: leaf) else { return [] }
        return byKeyIdentifier[identifier] ?? []
    }

    /// FIDO Metadata Statement 3.0 §4, `attestationCertificateKeyIdentifiers`: the lower-case hex SHA-1 of the
    /// certificate's subject public key. U2F attestation keys are P-256 (FIDO U2F Raw Message Formats §4.3), whose
    /// subject public key is the uncompressed point.
    public static func keyIdentifier(of certificate: Certificate) -> String? {
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else { return nil }
        return Insecure.SHA1.hash(data: key.x963Representation).map { String(format: "%02x", $0) }.joined()
    }
}
