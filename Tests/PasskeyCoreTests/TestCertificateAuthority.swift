import Foundation
import Crypto
import X509
import SwiftASN1

/// A P-256 certificate authority made in a test, for attestation statements whose certificates a test shapes: a root,
/// or an intermediate issued by another authority. Every certificate is valid from ``from`` to ``until`` unless a test
/// says otherwise, around the ``validationTime`` the statements are checked at.
struct TestCertificateAuthority {
    static let validationTime = Date(timeIntervalSince1970: 1_700_000_000)
    static let from = Date(timeIntervalSince1970: 1_600_000_000)
    static let until = Date(timeIntervalSince1970: 1_900_000_000)

    let key = P256.Signing.PrivateKey()
    let name: DistinguishedName
    let certificate: Certificate

    static func caExtensions() throws -> Certificate.Extensions {
        try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            KeyUsage(keyCertSign: true)
        }
    }

    /// A root (self-signed), or with `issuer` an intermediate it issues, valid over `validity`.
    init(_ commonName: String, issuer: TestCertificateAuthority? = nil, validity: (Date, Date) = (from, until)) throws {
        name = try DistinguishedName { CommonName(commonName) }
        let signer = issuer.map { Certificate.PrivateKey($0.key) } ?? Certificate.PrivateKey(key)
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: validity.0, notValidAfter: validity.1,
            issuer: issuer?.name ?? name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: try Self.caExtensions(),
            issuerPrivateKey: signer)
    }

    /// A certificate for `key`, signed by this authority, in DER as `x5c` carries it.
    func issue(
        version: Certificate.Version = .v3, subject: DistinguishedName, key: P256.Signing.PublicKey, extensions: Certificate.Extensions,
        validity: (Date, Date) = (from, until)
    ) throws -> [UInt8] {
        let certificate = try Certificate(
            version: version, serialNumber: .init(), publicKey: .init(key), notValidBefore: validity.0, notValidAfter: validity.1,
            issuer: name, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(self.key))
        var serializer = DERSerializerBox()
        return try serializer.serialize(certificate)
    }

    /// This authority's own certificate in DER.
    func der() throws -> [UInt8] {
        var serializer = DERSerializerBox()
        return try serializer.serialize(certificate)
    }
}
