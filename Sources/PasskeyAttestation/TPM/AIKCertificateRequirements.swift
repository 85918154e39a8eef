import PasskeyCore
import X509
import SwiftASN1

/// WebAuthn L3 §8.3.1 TPM Attestation Statement Certificate Requirements, for the attestation identity key (AIK)
/// certificate, and the TPM device description its subject alternative name carries.
struct AIKCertificateRequirements {
    /// The TPM described by the AIK certificate's subjectAltName (TCG EK Credential Profile §3.2.9).
    struct TPMDevice: Sendable, Hashable {
        let manufacturer: String
        let model: String
        let version: String
    }

    /// Checks the certificate and returns the TPM device it names.
    static func check(_ certificate: Certificate) throws(WebAuthnError) -> TPMDevice {
        // §8.3.1: "Version MUST be set to 3."
        guard certificate.version == .v3 else {
            throw WebAuthnError(
                .attestationInvalid, "tpm AIK certificate must be X.509 version 3", expected: "v3", received: "\(certificate.version)")
        }
        // §8.3.1: "Subject field MUST be set to empty."
        guard certificate.subject.isEmpty else {
            throw WebAuthnError(
                .attestationInvalid, "tpm AIK certificate subject must be empty", expected: "empty",
                received: certificate.subject.description)
        }
        // §8.3.1: "The Subject Alternative Name extension MUST be set as defined in [TPMv2-EK-Profile] section 3.2.9."
        let device = try tpmDevice(certificate)
        // §8.3.1: "The Extended Key Usage extension MUST contain the OID 2.23.133.8.3".
        let usages: ExtendedKeyUsage?
        do { usages = try certificate.extensions.extendedKeyUsage } catch {
            throw WebAuthnError(.attestationInvalid, "tpm AIK certificate extended key usage extension is malformed")
        }
        let aik = ExtendedKeyUsage.Usage(oid: AttestationOID.tcgAIKCertificate)
        guard let usages, usages.contains(aik) else {
            throw WebAuthnError(
                .attestationInvalid, "tpm AIK certificate extended key usage must contain tcg-kp-AIKCertificate",
                expected: "2.23.133.8.3", received: usages.map { "\($0)" } ?? "no extended key usage extension")
        }
        // §8.3.1: "The Basic Constraints extension MUST have the CA component set to false."
        guard let constraints = try certificate.attestationBasicConstraints(), !constraints.isCA else {
            throw WebAuthnError(
                .attestationInvalid, "tpm AIK certificate basic constraints must be present with CA=FALSE", expected: "CA=FALSE")
        }
        return device
    }

    /// Reads tcgAtTpmManufacturer, tcgAtTpmModel and tcgAtTpmVersion from the directoryName of the subjectAltName.
    ///
    /// The EK profile puts each attribute in its own RDN; some Windows devices put all three in ONE multi-valued RDN.
    /// Both carry the same facts, so the attributes are collected across all RDNs of the directory name, and each must
    /// appear exactly once.
    static func tpmDevice(_ certificate: Certificate) throws(WebAuthnError) -> TPMDevice {
        let names: SubjectAlternativeNames?
        do { names = try certificate.extensions.subjectAlternativeNames } catch {
            throw WebAuthnError(.attestationInvalid, "tpm AIK certificate subjectAltName extension is malformed")
        }
        guard let names else {
            throw WebAuthnError(.attestationInvalid, "tpm AIK certificate has no subjectAltName extension")
        }
        var directoryNames: [DistinguishedName] = []
        for name in names {
            if case .directoryName(let directory) = name { directoryNames.append(directory) }
        }
        guard directoryNames.count == 1, let directory = directoryNames.first else {
            throw WebAuthnError(
                .attestationInvalid, "tpm AIK certificate subjectAltName must hold one directoryName",
                received: "\(directoryNames.count)")
        }
        func single(_ oid: ASN1ObjectIdentifier, _ name: String) throws(WebAuthnError) -> String {
            let values = Certificate.strings(oid, in: directory)
            guard values.count == 1, let value = values.first, !value.isEmpty else {
                throw WebAuthnError(
                    .attestationInvalid, "tpm AIK certificate subjectAltName must name the \(name) exactly once",
                    received: directory.description)
            }
            return value
        }
        return TPMDevice(
            manufacturer: try single(AttestationOID.tcgTPMManufacturer, "TPM manufacturer (2.23.133.2.1)"),
            model: try single(AttestationOID.tcgTPMModel, "TPM model (2.23.133.2.2)"),
            version: try single(AttestationOID.tcgTPMVersion, "TPM version (2.23.133.2.3)"))
    }
}
