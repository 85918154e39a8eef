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

/// Lists by URL, as a test hands them out; a URL it does not have is out of reach.
struct StaticRevocationLists: RevocationListSource {
    let lists: [String: [UInt8]]
    func revocationList(at url: String) async -> Result<CertificateRevocationList, RevocationListUnavailable> {
        guard let bytes = lists[url] else { return .failure(RevocationListUnavailable("no answer")) }
        do { return .success(try CertificateRevocationList(derEncoded: bytes)) } catch { return .failure(RevocationListUnavailable(error.description)) }
    }
}

@Suite("Revocation of a certificate path")
struct RevocationCheckerTests {
    /// Root → intermediate (naming the root's list) → leaf (naming the intermediate's list).
    struct Path {
        let root: TestCertificateAuthority
        let intermediate: TestCertificateAuthority
        let leaf: Certificate
        let intermediateCertificate: Certificate
        var certificates: [Certificate] { [leaf, intermediateCertificate, root.certificate] }

        init() throws {
            root = try TestCertificateAuthority("Root")
            intermediate = try TestCertificateAuthority("Intermediate", issuer: root)
            intermediateCertificate = try Certificate(
                derEncoded: try root.issue(
                    subject: intermediate.name, key: intermediate.key.publicKey,
                    extensions: try Certificate.Extensions {
                        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                        try TestRevocationList.distributionPoints(["http://crl.test/root.crl"])
                    }))
            leaf = try Certificate(
                derEncoded: try intermediate.issue(
                    subject: try DistinguishedName { CommonName("signer") }, key: P256.Signing.PrivateKey().publicKey,
                    extensions: try Certificate.Extensions([try TestRevocationList.distributionPoints(["http://crl.test/unreachable.crl", "http://crl.test/intermediate.crl"])])))
        }
    }

    static let time = TestCertificateAuthority.validationTime

    @Test("good lists pass; a revoked leaf or intermediate is refused; an unreachable, foreign or stale list is a warning")
    func outcomes() async throws {
        let path = try Path()
        func check(intermediate: [UInt8]?, root: [UInt8]?) async -> RevocationChecker.Status {
            var lists: [String: [UInt8]] = [:]
            lists["http://crl.test/intermediate.crl"] = intermediate
            lists["http://crl.test/root.crl"] = root
            return await RevocationChecker(source: StaticRevocationLists(lists: lists)).check(path.certificates, at: Self.time)
        }
        let goodIntermediateList = try path.intermediate.revocationList(revoking: [])
        let goodRootList = try path.root.revocationList(revoking: [])
        // The leaf's first URL is out of reach; its second answers: checked, no warning.
        #expect(await check(intermediate: goodIntermediateList, root: goodRootList) == .good)
        let leafRevoked = await check(intermediate: try path.intermediate.revocationList(revoking: [path.leaf.serialNumber]), root: goodRootList)
        guard case .revoked(let subject) = leafRevoked else { Issue.record("\(leafRevoked)"); return }
        #expect(subject.contains("signer"))
        let intermediateRevoked = await check(intermediate: goodIntermediateList, root: try path.root.revocationList(revoking: [path.intermediateCertificate.serialNumber]))
        guard case .revoked(let other) = intermediateRevoked else { Issue.record("\(intermediateRevoked)"); return }
        #expect(other.contains("Intermediate"))
        // Out of reach; signed by another key under the issuer's name; past its next update.
        guard case .unknown(let unreachable) = await check(intermediate: nil, root: goodRootList) else { Issue.record("unreachable"); return }
        #expect(unreachable.count == 1 && unreachable[0].contains("no answer"))
        let forged = try path.intermediate.revocationList(revoking: [], signer: P256.Signing.PrivateKey())
        guard case .unknown(let foreign) = await check(intermediate: forged, root: goodRootList) else { Issue.record("foreign"); return }
        #expect(foreign.count == 1 && foreign[0].contains("not signed by"))
        let stale = try path.intermediate.revocationList(revoking: [], thisUpdate: Self.time.addingTimeInterval(-7 * 86_400), nextUpdate: Self.time.addingTimeInterval(-86_400))
        guard case .unknown(let old) = await check(intermediate: stale, root: goodRootList) else { Issue.record("stale"); return }
        #expect(old.count == 1 && old[0].contains("past its next update"))
        // Certificates that name no list: nothing to ask.
        let bare = try TestCertificateAuthority("Bare")
        #expect(await RevocationChecker(source: StaticRevocationLists(lists: [:])).check([bare.certificate], at: Self.time) == .good)
    }
}
