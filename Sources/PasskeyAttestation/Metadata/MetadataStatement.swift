public import PasskeyWire
public import X509

/// What the vendor states about an authenticator model (FIDO Metadata Statement 3.0): the parts a relying party
/// decides with. The rest of the statement is kept as it came, in ``raw``.
public struct MetadataStatement: Sendable, Hashable {
    /// The model's name (`description`).
    public var description: String
    /// The model's AAGUID for FIDO2 authenticators, lower-case with dashes.
    public var aaguid: String?
    /// The key identifiers (hex SHA-1 of the attestation public key) of U2F authenticators.
    public var attestationCertificateKeyIdentifiers: [String]
    /// `basic_full`, `basic_surrogate`, `attca`, `anonca`, `none`, … (FIDO Registry §3.6.3).
    public var attestationTypes: [String]
    /// The roots an attestation of this model must chain to, from `attestationRootCertificates`.
    public var attestationRootCertificates: [Certificate]
    /// Roots the statement lists that could not be read as X.509 certificates, and are left out.
    public var unreadableRootCertificates: Int
    /// `secp256r1_ecdsa_sha256_raw`, `rsassa_pkcsv15_sha256_raw`, … (FIDO Registry §3.6.1).
    public var authenticationAlgorithms: [String]
    /// `hardware`, `secure_element`, `software`, `tee`, `remote_handle` (FIDO Registry §3.6.2).
    public var keyProtection: [String]
    /// A `data:` URL of the model's icon, when the vendor gave one.
    public var icon: String?
    /// The whole statement as the BLOB carried it.
    public var raw: JSONObject

    public init(
        description: String, aaguid: String? = nil, attestationCertificateKeyIdentifiers: [String] = [], attestationTypes: [String] = [],
        attestationRootCertificates: [Certificate] = [], unreadableRootCertificates: Int = 0, authenticationAlgorithms: [String] = [], keyProtection: [String] = [],
        icon: String? = nil, raw: JSONObject = [:]
    ) {
        self.description = description
        self.aaguid = aaguid
        self.attestationCertificateKeyIdentifiers = attestationCertificateKeyIdentifiers
        self.attestationTypes = attestationTypes
        self.attestationRootCertificates = attestationRootCertificates
        self.unreadableRootCertificates = unreadableRootCertificates
        self.authenticationAlgorithms = authenticationAlgorithms
        self.keyProtection = keyProtection
        self.icon = icon
        self.raw = raw
    }
}
