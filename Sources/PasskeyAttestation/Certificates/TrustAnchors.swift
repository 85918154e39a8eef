public import PasskeyCore
public import PasskeyWire
public import X509
import SwiftASN1

/// The root certificates a relying party trusts, per attestation format.
///
/// Roots are kept per format because a root that is right for one format is wrong for another: the GlobalSign roots
/// that anchor Android SafetyNet must not make a packed security key trusted. A format with no roots configured still
/// verifies its statement, and reports ``PasskeyCore/AttestationTrust/noTrustAnchors`` instead of failing.
///
/// A value, passed in: load the PEM files once at start-up (this type does no I/O) and hand the result to
/// `AttestationVerifiers.standard(trustAnchors:)`.
public struct TrustAnchors: Sendable {
    /// Root certificates by format.
    public let roots: [AttestationFormat: [Certificate]]
    /// Roots by authenticator model, from verified metadata: what a format without roots of its own is checked
    /// against (issue 48: an operator's `--attestation-root` for a format wins over the metadata).
    public let models: AuthenticatorModelRoots

    public init(roots: [AttestationFormat: [Certificate]], models: AuthenticatorModelRoots = .empty) {
        self.roots = roots.filter { !$0.value.isEmpty }
        self.models = models
    }

    /// No trust anchors: every chain is reported as `noTrustAnchors`.
    public static let empty = TrustAnchors(roots: [:])

    /// Roots for one format from PEM text holding one or more `CERTIFICATE` blocks.
    /// - Throws: `field_invalid` when the text holds no certificate or a block is not a certificate.
    public init(pem: String, for format: AttestationFormat) throws(WebAuthnError) {
        self.init(roots: [format: try Self.certificates(pem: pem)])
    }

    /// Roots for one format from DER certificates.
    public init(der: [[UInt8]], for format: AttestationFormat) throws(WebAuthnError) {
        var certificates: [Certificate] = []
        for (index, bytes) in der.enumerated() {
            do { certificates.append(try Certificate(derEncoded: bytes)) } catch {
                throw WebAuthnError(.fieldInvalid, "trust anchor \(index) for \(format) is not a DER certificate")
            }
        }
        self.init(roots: [format: certificates])
    }

    /// The roots configured for `format` (empty when none).
    public func roots(for format: AttestationFormat) -> [Certificate] { roots[format] ?? [] }

    /// The roots an attestation of `format` by the model `aaguid` (or, for U2F, the model of the attestation
    /// certificate `leaf`) must reach: those configured for the format, or else those its metadata statement names.
    public func roots(for format: AttestationFormat, aaguid: AAGUID, leaf: Certificate?) -> [Certificate] {
        if let configured = roots[format], !configured.isEmpty { return configured }
        guard Self.modelFormats.contains(format) else { return [] }
        return models.roots(aaguid: aaguid, leaf: leaf)
    }

    /// The formats whose chain leads to the authenticator vendor's own root, which is what a metadata statement lists.
    /// An android-key, SafetyNet or Apple chain leads to the platform's root whatever the AAGUID claims (Android
    /// phones claim the one whose statement lists SafetyNet's TLS roots), so metadata gives those formats none.
    static let modelFormats: Set<AttestationFormat> = [.packed, .tpm, .fidoU2F]

    /// A copy with `certificates` added to the roots of `format`.
    public func adding(_ certificates: [Certificate], for format: AttestationFormat) -> TrustAnchors {
        var copy = roots
        copy[format, default: []].append(contentsOf: certificates)
        return TrustAnchors(roots: copy, models: models)
    }

    /// A copy whose models' roots are `models` (a new metadata BLOB's).
    public func replacing(models: AuthenticatorModelRoots) -> TrustAnchors { TrustAnchors(roots: roots, models: models) }

    /// A copy with the certificates in `pem` added to the roots of `format`.
    public func adding(pem: String, for format: AttestationFormat) throws(WebAuthnError) -> TrustAnchors {
        adding(try Self.certificates(pem: pem), for: format)
    }

    /// Every `CERTIFICATE` block of a PEM text.
    static func certificates(pem: String) throws(WebAuthnError) -> [Certificate] {
        let documents: [PEMDocument]
        do { documents = try PEMDocument.parseMultiple(pemString: pem) } catch {
            throw WebAuthnError(.fieldInvalid, "trust anchor text is not PEM")
        }
        var certificates: [Certificate] = []
        for document in documents where document.discriminator == Certificate.defaultPEMDiscriminator {
            do { certificates.append(try Certificate(derEncoded: document.derBytes)) } catch {
                throw WebAuthnError(.fieldInvalid, "a PEM CERTIFICATE block of a trust anchor is not a valid certificate")
            }
        }
        guard !certificates.isEmpty else {
            throw WebAuthnError(.fieldInvalid, "trust anchor text holds no CERTIFICATE block")
        }
        return certificates
    }
}
