public import Foundation
import SwiftASN1
public import X509

/// A certificate revocation list (RFC 5280 §5): who issued it, when, until when, and the serial numbers it revokes.
/// Read strictly (DER, every length checked, trailing bytes refused) and only believed once its signature verifies with
/// the issuer's key (``isSigned(by:)``).
public struct CertificateRevocationList: Sendable {
    public let issuer: DistinguishedName
    public let thisUpdate: Date
    /// When the next list is due; a list past it is stale.
    public let nextUpdate: Date?
    /// The revoked certificates' serial numbers, as their DER INTEGER contents.
    let revokedSerials: Set<[UInt8]>
    let toBeSigned: [UInt8]
    let signatureAlgorithm: Certificate.SignatureAlgorithm?
    let signature: [UInt8]

    /// Why a list cannot be read.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    /// RFC 5280 §5.1: `CertificateList ::= SEQUENCE { tbsCertList, signatureAlgorithm, signatureValue BIT STRING }`.
    public init(derEncoded bytes: [UInt8]) throws(Malformed) {
        do {
            let root = try DER.parse(bytes)
            (toBeSigned, signatureAlgorithm, signature, issuer, thisUpdate, nextUpdate, revokedSerials) = try DER.sequence(root, identifier: .sequence) {
                nodes in
                guard let tbs = nodes.next() else { throw Malformed(description: "no tbsCertList") }
                let algorithm = try Self.algorithm(&nodes)
                let signature = try ASN1BitString(derEncoded: &nodes)
                guard nodes.next() == nil else { throw Malformed(description: "trailing members after the signature") }
                let list = try Self.toBeSigned(tbs)
                return (Array(tbs.encodedBytes), algorithm, Array(signature.bytes), list.issuer, list.thisUpdate, list.nextUpdate, list.revoked)
            }
        } catch let error as Malformed {
            throw error
        } catch {
            throw Malformed(description: "not a DER certificate revocation list: \(error)")
        }
    }

    /// Whether `issuer` signed this list: its name is the list's issuer and its key verifies the signature.
    public func isSigned(by issuer: Certificate) -> Bool {
        guard issuer.subject == self.issuer, let signatureAlgorithm else { return false }
        return issuer.publicKey.isValidSignature(signature, for: toBeSigned, signatureAlgorithm: signatureAlgorithm)
    }

    /// Whether the list revokes `certificate`.
    public func revokes(_ certificate: Certificate) -> Bool { revokedSerials.contains(Array(certificate.serialNumber.bytes)) }

    /// The signature algorithms CAs sign lists with; another is not verified (``isSigned(by:)`` is false).
    static let algorithms: [ASN1ObjectIdentifier: Certificate.SignatureAlgorithm] = [
        [1, 2, 840, 113_549, 1, 1, 11]: .sha256WithRSAEncryption, [1, 2, 840, 113_549, 1, 1, 12]: .sha384WithRSAEncryption,
        [1, 2, 840, 113_549, 1, 1, 13]: .sha512WithRSAEncryption, [1, 2, 840, 10_045, 4, 3, 2]: .ecdsaWithSHA256,
        [1, 2, 840, 10_045, 4, 3, 3]: .ecdsaWithSHA384, [1, 2, 840, 10_045, 4, 3, 4]: .ecdsaWithSHA512,
    ]

    /// `AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters ANY OPTIONAL }`.
    static func algorithm(_ nodes: inout ASN1NodeCollection.Iterator) throws -> Certificate.SignatureAlgorithm? {
        try DER.sequence(of: ASN1Any.self, identifier: .sequence, nodes: &nodes).first.map { first in
            Self.algorithms[try ASN1ObjectIdentifier(asn1Any: first)]
        } ?? nil
    }

    /// RFC 5280 §5.1.2: version, signature, issuer, thisUpdate, nextUpdate, revokedCertificates, crlExtensions.
    static func toBeSigned(_ node: ASN1Node) throws -> (issuer: DistinguishedName, thisUpdate: Date, nextUpdate: Date?, revoked: Set<[UInt8]>) {
        try DER.sequence(node, identifier: .sequence) { nodes in
            var next = nodes.next()
            if next?.identifier == .integer { next = nodes.next() }  // version v2
            guard let signatureAlgorithm = next, signatureAlgorithm.identifier == .sequence, let issuerNode = nodes.next() else {
                throw Malformed(description: "tbsCertList lacks its signature algorithm or issuer")
            }
            let issuer = try DistinguishedName(derEncoded: issuerNode)
            guard let thisNode = nodes.next(), let thisUpdate = try Self.time(thisNode) else { throw Malformed(description: "thisUpdate is not a time") }
            next = nodes.next()
            var nextUpdate: Date?
            if let node = next, let time = try Self.time(node) {
                nextUpdate = time
                next = nodes.next()
            }
            var revoked: Set<[UInt8]> = []
            if let node = next, node.identifier == .sequence {
                try DER.sequence(node, identifier: .sequence) { entries in
                    while let entry = entries.next() {
                        try DER.sequence(entry, identifier: .sequence) { members in
                            revoked.insert(Array(try ArraySlice<UInt8>(derEncoded: &members)))
                            while members.next() != nil {}  // revocationDate, crlEntryExtensions
                        }
                    }
                }
                next = nodes.next()
            }
            // crlExtensions [0] EXPLICIT, then nothing.
            if let node = next {
                guard node.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) else {
                    throw Malformed(description: "unexpected member in tbsCertList")
                }
                guard nodes.next() == nil else { throw Malformed(description: "trailing members in tbsCertList") }
            }
            return (issuer, thisUpdate, nextUpdate, revoked)
        }
    }

    /// A `Time` (UTCTime or GeneralizedTime) as a date; nil when the node is neither.
    static func time(_ node: ASN1Node) throws -> Date? {
        let parts: (year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int)
        switch node.identifier {
        case .utcTime:
            let time = try UTCTime(derEncoded: node)
            parts = (time.year, time.month, time.day, time.hours, time.minutes, time.seconds)
        case .generalizedTime:
            let time = try GeneralizedTime(derEncoded: node)
            parts = (time.year, time.month, time.day, time.hours, time.minutes, time.seconds)
        default: return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(
            from: DateComponents(year: parts.year, month: parts.month, day: parts.day, hour: parts.hours, minute: parts.minutes, second: parts.seconds))
    }
}

extension Certificate {
    /// The `http(s)` URLs of the certificate's CRL distribution points (RFC 5280 §4.2.1.13): the `uniformResourceIdentifier`
    /// names (`[6]`) in the extension, in order.
    public var crlDistributionPoints: [String] {
        guard let value = extensions.first(where: { $0.oid == [2, 5, 29, 31] })?.value, let root = try? DER.parse(Array(value)) else { return [] }
        var urls: [String] = []
        func walk(_ node: ASN1Node, depth: Int) {
            guard depth < 8 else { return }
            switch node.content {
            case .constructed(let children): for child in children { walk(child, depth: depth + 1) }
            case .primitive(let bytes):
                if node.identifier == ASN1Identifier(tagWithNumber: 6, tagClass: .contextSpecific),
                    let url = String(bytes: bytes, encoding: .ascii), url.hasPrefix("http://") || url.hasPrefix("https://")
                {
                    urls.append(url)
                }
            }
        }
        walk(root, depth: 0)
        return urls
    }
}
