import Crypto
import Foundation
import PasskeyAttestation
import PasskeyTestSupport
import SwiftASN1
import Testing
import X509

extension TestCertificateAuthority {
    /// A CRL this authority signs (or `signer` does, under its name), revoking `serials`.
    func revocationList(
        revoking serials: [Certificate.SerialNumber], thisUpdate: Date = validationTime, nextUpdate: Date? = validationTime.addingTimeInterval(86_400),
        signer: P256.Signing.PrivateKey? = nil, corrupt: Bool = false
    ) throws -> [UInt8] {
        try TestRevocationList.make(
            issuer: name, key: signer ?? key, revoking: serials, thisUpdate: thisUpdate, nextUpdate: nextUpdate, corrupt: corrupt)
    }
}

@Suite("Certificate revocation lists")
struct CertificateRevocationListTests {
    @Test("a list read back: issuer, times, the serials it revokes, and a signature only its issuer's key verifies")
    func readAndVerified() throws {
        let ca = try TestCertificateAuthority("Test CA")
        let other = try TestCertificateAuthority("Other CA")
        let revoked = try Certificate(derEncoded: try ca.issue(subject: try DistinguishedName { CommonName("revoked") }, key: P256.Signing.PrivateKey().publicKey, extensions: .init()))
        let kept = try Certificate(derEncoded: try ca.issue(subject: try DistinguishedName { CommonName("kept") }, key: P256.Signing.PrivateKey().publicKey, extensions: .init()))
        let list = try CertificateRevocationList(derEncoded: try ca.revocationList(revoking: [revoked.serialNumber]))
        #expect(list.issuer == ca.name && list.thisUpdate == TestCertificateAuthority.validationTime)
        #expect(list.nextUpdate == TestCertificateAuthority.validationTime.addingTimeInterval(86_400))
        #expect(list.revokes(revoked) && !list.revokes(kept))
        #expect(list.isSigned(by: ca.certificate))
        // Another authority's certificate; the same name with another key; a flipped signature bit.
        #expect(!list.isSigned(by: other.certificate))
        let forged = try CertificateRevocationList(derEncoded: try ca.revocationList(revoking: [], signer: P256.Signing.PrivateKey()))
        #expect(!forged.isSigned(by: ca.certificate))
        let corrupt = try CertificateRevocationList(derEncoded: try ca.revocationList(revoking: [revoked.serialNumber], corrupt: true))
        #expect(!corrupt.isSigned(by: ca.certificate))
        // No revoked entries and no nextUpdate: both optional.
        let empty = try CertificateRevocationList(derEncoded: try ca.revocationList(revoking: [], nextUpdate: nil))
        #expect(empty.nextUpdate == nil && !empty.revokes(revoked) && empty.isSigned(by: ca.certificate))
    }

    @Test("not a list, a truncated one, trailing bytes: refused, never a trap")
    func malformed() throws {
        let ca = try TestCertificateAuthority("Test CA")
        let bytes = try ca.revocationList(revoking: [])
        for bad in [[], [0x30, 0x00], Array(bytes.dropLast(3)), bytes + [0x00], Array("not a CRL".utf8), try ca.der()] {
            #expect(throws: CertificateRevocationList.Malformed.self) { try CertificateRevocationList(derEncoded: bad) }
        }
    }

    @Test("the CRL distribution points of the real metadata BLOB's signing certificate, and none where the extension is absent")
    func distributionPoints() throws {
        let blob = String(decoding: try MetadataBLOBTests.realBLOB, as: UTF8.self)
        let header = try #require(blob.split(separator: ".").first.flatMap { Data(base64URLEncoded: String($0)) })
        let object = try JSONSerialization.jsonObject(with: header) as? [String: Any]
        let x5c = try #require(object?["x5c"] as? [String])
        let leaf = try Certificate(derEncoded: Array(try #require(Data(base64Encoded: x5c[0]))))
        let intermediate = try Certificate(derEncoded: Array(try #require(Data(base64Encoded: x5c[1]))))
        #expect(leaf.crlDistributionPoints == ["http://crl.globalsign.com/gs/gsextendvalsha2g3r3.crl"])
        #expect(intermediate.crlDistributionPoints == ["http://crl.globalsign.com/root-r3.crl"])
        #expect(try TestCertificateAuthority("Test CA").certificate.crlDistributionPoints == [])
        let extensions = try Certificate.Extensions([try TestRevocationList.distributionPoints(["http://crl.example/a.crl", "ldap://x", "https://crl.example/b.crl"])])
        let named = try Certificate(derEncoded: try TestCertificateAuthority("Test CA").issue(subject: try DistinguishedName { CommonName("x") }, key: P256.Signing.PrivateKey().publicKey, extensions: extensions))
        #expect(named.crlDistributionPoints == ["http://crl.example/a.crl", "https://crl.example/b.crl"])
    }
}

extension Data {
    init?(base64URLEncoded text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
