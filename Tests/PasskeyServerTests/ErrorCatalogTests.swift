import Foundation
import PasskeyAPI
import PasskeyCore
import Testing

/// The API's error catalog (`ErrorCode.catalog`) is the one list of codes: the documentation is checked against it,
/// every lower layer's code is in it, and no code is spelled as a string anywhere else.
@Suite("Error codes: one catalog, documented, never spelled as strings")
struct ErrorCatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `(status, code)` docs/error-codes.md lists in its tables; status nil for rows that are not answers
    /// ("(none…)", "(event)"), 400 for the verification table, which has no status column.
    static func documented() throws -> [(status: Int?, code: String)] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/error-codes.md"), encoding: .utf8)
        var rows: [(Int?, String)] = []
        for line in text.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| ---") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let first = cells[1]
            let (status, codeCell): (Int?, String) =
                if first.hasPrefix("`") { (400, first) } else if let number = Int(first) { (number, cells[2]) } else { (nil, cells[2]) }
            if first == "status" || first == "code" { continue }
            for code in codeCell.split(separator: "`", omittingEmptySubsequences: false).enumerated() where code.offset % 2 == 1 { rows.append((status, String(code.element))) }
        }
        return rows
    }

    @Test("docs/error-codes.md lists every code of the catalog with its status, and no other")
    func documentation() throws {
        let rows = try Self.documented()
        #expect(rows.count > 60, "the tables were read")
        let documented = Set(rows.map(\.code))
        for definition in ErrorCode.catalog {
            #expect(documented.contains(definition.code.rawValue), "\(definition.code) is not documented")
        }
        for row in rows {
            let definition = ErrorCode.catalog.first { $0.code.rawValue == row.code }
            #expect(definition != nil, "docs/error-codes.md lists \(row.code), which the catalog does not")
            #expect(definition?.answerStatus == row.status, "\(row.code): documented \(row.status.map(String.init) ?? "none"), catalog \(definition?.answerStatus.map(String.init) ?? "none")")
        }
    }

    @Test("each code is defined once, and its status is the catalog's")
    func catalog() {
        let codes = ErrorCode.catalog.map(\.code)
        #expect(Set(codes).count == codes.count, "a code is defined twice")
        #expect(ErrorCode.usernameTaken.status == 409 && ErrorCode.rateLimited.status == 429 && ErrorCode.challengeInvalid.status == 400)
        #expect(ErrorCode(rawValue: "some_future_code").status == 400, "an unknown code is a refusal of what was sent")
        #expect(ErrorCode.catalog.allSatisfy { !$0.summary.isEmpty })
    }

    /// The codes a lower layer defines (as `Code(rawValue: "…")`), read from its source.
    static func defined(in file: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let pattern = try Regex(#"static let \w+ = Code\(rawValue: "([a-z0-9_]+)"\)"#)
        return text.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) }
    }

    @Test("every code of the verifier and the wire reader reaches the wire through the catalog")
    func lowerLayers() throws {
        let catalogued = Set(ErrorCode.catalog.map(\.code.rawValue))
        let verifier = try Self.defined(in: "Sources/PasskeyCore/WebAuthnError.swift")
        let wire = try Self.defined(in: "Sources/PasskeyWire/WireError.swift")
        #expect(verifier.count > 30 && wire.count == 3)
        for code in verifier + wire { #expect(catalogued.contains(code), "\(code) is not in the catalog") }
    }

    /// Where a catalog code may appear as a string: where lower layers define their own codes, and two strings that are
    /// the same words but no error code.
    static let definitions: Set<String> = [
        "Sources/PasskeyAPI/ErrorCode+Catalog.swift", "Sources/PasskeyCore/WebAuthnError.swift", "Sources/PasskeyWire/WireError.swift",
        "Sources/PasskeyStorage/StorageError.swift", "Sources/PasskeyCBOR/CBORError.swift", "Sources/PasskeyClient/PasskeyError.swift",
        // A claim name of signedPasskeyData, and an input's placeholder text.
        "Sources/PasskeyRelyingParty/Tokens/SignedPasskeyData.swift", "Sources/PasskeyServer/Dashboard/DashboardPages.swift",
    ]

    @Test("no error code is written as a string in Sources or Examples")
    func noStringCodes() throws {
        let codes = Set(ErrorCode.catalog.map(\.code.rawValue))
        var found: [String] = []
        for folder in ["Sources", "Examples"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
            for case let url as URL in files where url.pathExtension == "swift" {
                let path = String(url.path.dropFirst(Self.root.path.count + 1))
                guard !Self.definitions.contains(path) else { continue }
                for (number, line) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
                    for (index, piece) in quoted.enumerated() where index % 2 == 1 && codes.contains(String(piece)) {
                        found.append("\(path):\(number + 1): \(piece)")
                    }
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
