import Foundation
import PasskeyWire
import X509

/// Strict reading of the BLOB's JSON: a member of the wrong type is an error naming its path, never a default.
struct MetadataReader {
    let object: JSONObject
    let path: String

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    func malformed(_ name: String, _ expected: String) -> MetadataError {
        MetadataError(.malformed, "\(path).\(name) is not \(expected)", expected: expected, received: object[name]?.typeName)
    }

    func string(_ name: String) throws(MetadataError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw malformed(name, "a string") }
        return text
    }

    func integer(_ name: String) throws(MetadataError) -> Int? {
        guard let value = object[name], value != .null else { return nil }
        guard let number = value.intValue else { throw malformed(name, "an integer") }
        return number
    }

    func array(_ name: String, required: Bool = false) throws(MetadataError) -> [JSONValue] {
        guard let value = object[name], value != .null else {
            if required { throw MetadataError(.malformed, "\(path).\(name) is missing") }
            return []
        }
        guard let items = value.arrayValue else { throw malformed(name, "an array") }
        return items
    }

    func strings(_ name: String) throws(MetadataError) -> [String] {
        var result: [String] = []
        for item in try array(name) {
            guard let text = item.stringValue else { throw malformed(name, "an array of strings") }
            result.append(text)
        }
        return result
    }

    /// A full date, `YYYY-MM-DD` (FIDO Metadata Service 3.0 uses ISO 8601 dates), as midnight UTC.
    func date(_ name: String) throws(MetadataError) -> Date? {
        guard let text = try string(name) else { return nil }
        guard let date = Self.day(text) else { throw malformed(name, "a date (YYYY-MM-DD)") }
        return date
    }

    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        let components = DateComponents(year: year, month: month, day: day)
        // A day the calendar does not have (31 February) is refused rather than rolled over.
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    /// An AAGUID as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lower-cased.
    static func aaguid(_ text: String) -> String? {
        guard let uuid = UUID(uuidString: text), text.count == 36 else { return nil }
        return uuid.uuidString.lowercased()
    }

    static func object(_ value: JSONValue, path: String) throws(MetadataError) -> MetadataReader {
        guard let object = value.objectValue else {
            throw MetadataError(.malformed, "\(path) is not an object", expected: "object", received: value.typeName)
        }
        return MetadataReader(object, path: path)
    }

    /// FIDO Metadata Service 3.0 §3.1.1: one entry, named by AAGUID, AAID or key identifiers, with its status reports.
    static func entry(_ value: JSONValue, path: String) throws(MetadataError) -> MetadataBLOBEntry {
        let reader = try object(value, path: path)
        var aaguid: String?
        if let text = try reader.string("aaguid") {
            guard let parsed = Self.aaguid(text) else { throw reader.malformed("aaguid", "a UUID") }
            aaguid = parsed
        }
        let identifiers = try reader.strings("attestationCertificateKeyIdentifiers").map { $0.lowercased() }
        var reports: [StatusReport] = []
        for (index, report) in try reader.array("statusReports", required: true).enumerated() {
            reports.append(try statusReport(report, path: "\(path).statusReports[\(index)]"))
        }
        var statement: MetadataStatement?
        if let value = reader.object["metadataStatement"], value != .null {
            statement = try metadataStatement(value, path: "\(path).metadataStatement")
        }
        return MetadataBLOBEntry(
            aaguid: aaguid, aaid: try reader.string("aaid"), attestationCertificateKeyIdentifiers: identifiers, metadataStatement: statement,
            statusReports: reports, timeOfLastStatusChange: try reader.date("timeOfLastStatusChange"))
    }

    /// FIDO Metadata Service 3.0 §3.1.3: `status` is required; the rest is optional.
    static func statusReport(_ value: JSONValue, path: String) throws(MetadataError) -> StatusReport {
        let reader = try object(value, path: path)
        guard let status = try reader.string("status"), !status.isEmpty else {
            throw MetadataError(.malformed, "\(path).status is missing")
        }
        return StatusReport(
            status: AuthenticatorStatus(rawValue: status), effectiveDate: try reader.date("effectiveDate"),
            authenticatorVersion: try reader.integer("authenticatorVersion"), url: try reader.string("url"),
            certificationDescriptor: try reader.string("certificationDescriptor"), certificateNumber: try reader.string("certificateNumber"))
    }

    /// FIDO Metadata Statement 3.0 §4: the members a relying party decides with; `description` is required.
    static func metadataStatement(_ value: JSONValue, path: String) throws(MetadataError) -> MetadataStatement {
        let reader = try object(value, path: path)
        guard let description = try reader.string("description") else { throw MetadataError(.malformed, "\(path).description is missing") }
        var aaguid: String?
        if let text = try reader.string("aaguid") {
            guard let parsed = Self.aaguid(text) else { throw reader.malformed("aaguid", "a UUID") }
            aaguid = parsed
        }
        var roots: [Certificate] = []
        var unreadableRoots = 0
        for (index, text) in try reader.strings("attestationRootCertificates").enumerated() {
            // Standard base64 of DER (FIDO Metadata Statement 3.0 §4, attestationRootCertificates), read as leniently as
            // attestation certificates are: vendors' roots are not always strict DER (the real BLOB has one).
            // One vendor's entry holds two certificates back to back (the real BLOB's Feitian BioPass FIDO2 Pro): each
            // is read, and every byte must belong to one.
            let what = "\(path).attestationRootCertificates[\(index)]"
            guard let bytes = Base64URL.decodeStandard(text), let parts = Self.concatenatedDER(bytes) else {
                throw MetadataError(.malformed, "\(what) is not base64 of DER certificates")
            }
            for der in parts {
                // A certificate swift-certificates cannot represent (the real BLOB's RSA DS100 root gives its ECDSA
                // algorithm NULL parameters, which RFC 5758 §3.2 forbids) is left out and counted: that model's
                // attestations cannot reach it, and the rest of the BLOB stays usable.
                guard let root = try? AttestationCertificate(der: der, what: what) else {
                    unreadableRoots += 1
                    continue
                }
                roots.append(root.certificate)
            }
        }
        return MetadataStatement(
            description: description, aaguid: aaguid,
            attestationCertificateKeyIdentifiers: try reader.strings("attestationCertificateKeyIdentifiers").map { $0.lowercased() },
            attestationTypes: try reader.strings("attestationTypes"), attestationRootCertificates: roots,
            unreadableRootCertificates: unreadableRoots,
            authenticationAlgorithms: try reader.strings("authenticationAlgorithms"), keyProtection: try reader.strings("keyProtection"),
            icon: try reader.string("icon"), raw: reader.object)
    }

    /// Splits `bytes` into the DER SEQUENCEs it holds back to back (X.690 §8.1: tag, length, contents); nil when a
    /// part is not a SEQUENCE with a definite length that fits, or nothing is there.
    static func concatenatedDER(_ bytes: [UInt8]) -> [[UInt8]]? {
        let sequenceTag: UInt8 = 0x30
        let longForm: UInt8 = 0x80
        // At most 16 MB per certificate (three length bytes), so no sum below can overflow even where Int has 32 bits.
        let maximumLengthBytes = 3
        var parts: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes[offset] == sequenceTag, offset + 1 < bytes.count else { return nil }
            let first = bytes[offset + 1]
            var header = 2
            var length = Int(first)
            if first & longForm != 0 {
                let count = Int(first & ~longForm)
                guard (1...maximumLengthBytes).contains(count), offset + 2 + count <= bytes.count else { return nil }
                length = bytes[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
                header += count
            }
            let end = offset + header + length
            guard end <= bytes.count else { return nil }
            parts.append(Array(bytes[offset..<end]))
            offset = end
        }
        return parts.isEmpty ? nil : parts
    }
}
