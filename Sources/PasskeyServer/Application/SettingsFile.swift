import Foundation

/// A settings file for `passkey-server --config FILE` (or `PASSKEY_CONFIG`): one `name = value` per line, with the
/// flags' names, so a deployment keeps its settings in one reviewed file instead of a long command line.
///
/// ```
/// # /etc/passkey-server.conf
/// rp-id = example.com
/// origin = https://www.example.com, https://example.com
/// database = sqlite:/var/lib/passkey-server/passkey.sqlite
/// trust-proxy-headers = true
/// ```
///
/// Repeatable flags take a comma-separated list, as their environment variables do; `true` turns a switch on. `#`
/// starts a comment line; a value may be quoted (`"…"`), to keep spaces at its ends. A name that is not a setting, a
/// name given twice and a line without `=` are errors that name the line: a typo must not leave a setting at its
/// default without anyone noticing. A flag wins over its environment variable, which wins over the file.
public struct SettingsFile: Sendable, Hashable {
    /// Values by setting name (`rp-id`), as written (quotes removed).
    public let values: [String: String]
    /// The line each setting is on, for errors about its value.
    public let lines: [String: Int]
    /// The file's name in errors.
    public let source: String

    public init(values: [String: String], lines: [String: Int] = [:], source: String = "settings") {
        self.values = values
        self.lines = lines
        self.source = source
    }

    /// Where `name` is set, as errors show it (`/etc/passkey-server.conf:4`), or nil when the file does not set it.
    public func location(of name: String) -> String? { lines[name].map { "\(source):\($0)" } }

    /// Parses `text`; `known` are the names the file may set, `source` names the file in errors.
    public static func parse(_ text: String, known: Set<String>, source: String) throws(ConfigurationError) -> SettingsFile {
        var values: [String: String] = [:]
        var lines: [String: Int] = [:]
        // `\r\n` is one Character in Swift: split on any line break.
        for (offset, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = offset + 1
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError("\(source):\(number): expected name = value")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard known.contains(name) else {
                throw ConfigurationError("\(source):\(number): unknown setting \"\(name)\"; known settings: \(known.sorted().joined(separator: ", "))")
            }
            guard values[name] == nil else { throw ConfigurationError("\(source):\(number): \(name) is set twice") }
            values[name] = value
            lines[name] = number
        }
        return SettingsFile(values: values, lines: lines, source: source)
    }

    /// Reads and parses the file at `path` (UTF-8, at most 1 MiB).
    public static func load(path: String, known: Set<String>) throws(ConfigurationError) -> SettingsFile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConfigurationError("cannot read the settings file \(path): \(error.localizedDescription)")
        }
        guard data.count <= 1 << 20 else { throw ConfigurationError("the settings file \(path) is larger than 1 MiB") }
        guard let text = String(data: data, encoding: .utf8) else { throw ConfigurationError("the settings file \(path) is not UTF-8") }
        return try parse(text, known: known, source: path)
    }
}
