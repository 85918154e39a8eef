public import Crypto
public import Foundation
import SwiftASN1
public import X509

/// Certificate revocation lists and CRL distribution points made in tests, byte by byte as a CA makes them (RFC 5280
/// §5 and §4.2.1.13): swift-certificates reads and writes certificates, not lists.
public enum TestRevocationList {
    /// A list issued by `issuer`, signed with `key`, revoking `serials`. `corrupt` flips a bit of the signature.
    public static func make(
        issuer: DistinguishedName, key: P256.Signing.PrivateKey, revoking serials: [Certificate.SerialNumber], thisUpdate: Date,
        nextUpdate: Date?, corrupt: Bool = false
    ) throws -> [UInt8] {
        func time(_ date: Date) throws -> UTCTime {
            let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: date)
            return try UTCTime(year: c.year ?? 0, month: c.month ?? 0, day: c.day ?? 0, hours: c.hour ?? 0, minutes: c.minute ?? 0, seconds: c.second ?? 0)
        }
        func algorithm(_ s: inout DER.Serializer) throws {
            try s.appendConstructedNode(identifier: .sequence) { try $0.serialize(ASN1ObjectIdentifier(elements: [1, 2, 840, 10_045, 4, 3, 2])) }
        }
        var tbs = DER.Serializer()
        try tbs.appendConstructedNode(identifier: .sequence) { s in
            try s.serialize(1)
            try algorithm(&s)
            try s.serialize(issuer)
            try s.serialize(try time(thisUpdate))
            if let nextUpdate { try s.serialize(try time(nextUpdate)) }
            if !serials.isEmpty {
                try s.appendConstructedNode(identifier: .sequence) { entries in
                    for serial in serials {
                        try entries.appendConstructedNode(identifier: .sequence) { entry in
                            try entry.serialize(serial.bytes)
                            try entry.serialize(try time(thisUpdate))
                        }
                    }
                }
            }
        }
        var signature = Array(try key.signature(for: tbs.serializedBytes).derRepresentation)
        if corrupt, let last = signature.indices.last { signature[last] ^= 1 }
        var list = DER.Serializer()
        try list.appendConstructedNode(identifier: .sequence) { s in
            s.serializeRawBytes(tbs.serializedBytes)
            try algorithm(&s)
            try s.serialize(ASN1BitString(bytes: ArraySlice(signature)))
        }
        return list.serializedBytes
    }

    /// The CRL distribution points extension naming `urls` (each a `fullName` with one `uniformResourceIdentifier`).
    public static func distributionPoints(_ urls: [String]) throws -> Certificate.Extension {
        let context0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        var value = DER.Serializer()
        try value.appendConstructedNode(identifier: .sequence) { points in
            for url in urls {
                try points.appendConstructedNode(identifier: .sequence) { point in
                    try point.appendConstructedNode(identifier: context0) { name in
                        try name.appendConstructedNode(identifier: context0) { full in
                            full.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 6, tagClass: .contextSpecific)) { $0.append(contentsOf: Array(url.utf8)) }
                        }
                    }
                }
            }
        }
        return Certificate.Extension(oid: [2, 5, 29, 31], critical: false, value: ArraySlice(value.serializedBytes))
    }
}
