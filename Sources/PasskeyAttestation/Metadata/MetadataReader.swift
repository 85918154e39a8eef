import Foundation
import PasskeyWire

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
        var roots: [[UInt8]] = []
        for (index, text) in try reader.strings("attestationRootCertificates").enumerated() {
            // Standard base64 of DER (FIDO Metadata Statement 3.0 §4, attestationRootCertificates).
            guard let der = Base64URL.decodeStandard(text), !der.isEmpty else {
                throw MetadataError(.malformed, "\(path).attestationRootCertificates[\(index)] is not base64 DER")
            }
            roots.append(der)
        }
        return MetadataStatement(
            description: description, aaguid: aaguid,
            attestationCertificateKeyIdentifiers: try reader.strings("attestationCertificateKeyIdentifiers").map { $0.lowercased() },
            attestationTypes: try reader.strings("attestationTypes"), attestationRootCertificates: roots,
            authenticationAlgorithms: try reader.strings("authenticationAlgorithms"), keyProtection: try reader.strings("keyProtection"),
            icon: try reader.string("icon"), raw: reader.object)
    }
}
