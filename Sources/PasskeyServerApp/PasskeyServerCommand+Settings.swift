import ArgumentParser
import Foundation
import PasskeyServer
import PasskeyWire

/// Where a setting comes from when it is not a flag: its `PASSKEY_…` environment variable, else the settings file.
/// The names are the flags' own, so a flag, its variable and its file key are declared once.
extension PasskeyServerCommand {
    /// The settings a file given with `--config` may hold, and the `PASSKEY_` variables: every flag above but
    /// `--config` itself (and ArgumentParser's `--help` and `--version`). Read from the flags' own declarations
    /// (ArgumentParser's description of the command), so a flag declared above is a setting of the file and an
    /// environment variable at once, with no list to keep in step.
    static let settingNames: Set<String> = declaredFlags.subtracting(["config", "help", "version"])

    /// The long names of the server command's own options and flags.
    static var declaredFlags: Set<String> {
        guard let description = try? JSONValue.parse(Array(_dumpHelp().utf8)),
            let arguments = description.objectValue?["command"]?.objectValue?["arguments"]?.arrayValue
        else { return [] }
        var names: Set<String> = []
        for argument in arguments {
            for name in argument.objectValue?["names"]?.arrayValue ?? [] where name.objectValue?["kind"]?.stringValue == "long" {
                if let text = name.objectValue?["name"]?.stringValue { names.insert(text) }
            }
        }
        return names
    }

    /// `PASSKEY_` variables other tools of this project read: not settings of the server, and not mistakes.
    static let otherVariables: Set<String> = [
        "CONFIG", "ADMIN_TOKEN", "METRICS_TOKEN", "CONNECT_TOKEN", "SERVER_URL", "API_KEY", "TEST_POSTGRES_URL", "TEST_POSTGRES_BIN",
        "BENCH_MARKS", "APPLE_ADAPTER",
    ]

    /// A warning for each `PASSKEY_…` variable in `environment` that names no setting, with the one it most likely
    /// meant: a misspelt variable (`PASSKEY_RPID`) is otherwise ignored without a word, and the server runs on a default.
    static func unknownVariableWarnings(_ environment: [String: String]) -> [String] {
        let known = Set(settingNames.map { $0.uppercased().replacingOccurrences(of: "-", with: "_") }).union(otherVariables)
        func letters(_ name: String) -> String { name.filter { $0 != "_" } }
        return environment.keys.filter { $0.hasPrefix("PASSKEY_") }.sorted().compactMap { variable in
            let name = String(variable.dropFirst("PASSKEY_".count))
            guard !known.contains(name) else { return nil }
            let meant = known.first { letters($0) == letters(name.uppercased()) }
            return "warning: \(variable) is not a passkey-server setting and is ignored"
                + (meant.map { ": did you mean PASSKEY_\($0)?" } ?? " (passkey-server --help lists the settings)")
        }
    }

    /// A secret from the environment, trimmed. With `keepBlank`, a variable that is set but blank gives `""` rather than
    /// nil, so validation can refuse it: for a token whose absence opens something up, an empty value is more likely a
    /// template whose source was missing (`PASSKEY_METRICS_TOKEN=${TOKEN}`) than a wish for no token.
    static func secret(_ flag: String, keepBlank: Bool = false) -> String? {
        let name = "PASSKEY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let value = ProcessInfo.processInfo.environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        return value.isEmpty && !keepBlank ? nil : value
    }

    static func environment(_ flag: String) -> String? {
        let name = "PASSKEY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A setting not given as a flag: its environment variable, else the settings file.
    struct Settings {
        let file: SettingsFile

        func value(_ flag: String) -> String? {
            PasskeyServerCommand.environment(flag) ?? file.values[flag].flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The setting's name as the user wrote it: `PASSKEY_PORT` when the environment set it, else the file's line
        /// and `port` (`/etc/passkey-server.conf:4: port`).
        func name(_ flag: String) -> String {
            if PasskeyServerCommand.environment(flag) != nil { return "PASSKEY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_") }
            return file.location(of: flag).map { "\($0): \(flag)" } ?? flag
        }

        func list(_ values: [String], _ flag: String) -> [String] {
            values.isEmpty ? (value(flag)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []) : values
        }

        /// A number setting; one that is set but is not a number is an error, not the default.
        func int(_ flag: String) throws -> Int? {
            guard let text = value(flag) else { return nil }
            guard let number = Int(text) else { throw ValidationError("\(name(flag)) must be a whole number, not \"\(text)\"") }
            return number
        }

        func double(_ flag: String) throws -> Double? {
            guard let text = value(flag) else { return nil }
            guard let number = Double(text), number.isFinite else { throw ValidationError("\(name(flag)) must be a number, not \"\(text)\"") }
            return number
        }

        /// A switch: `true` or `false`.
        func bool(_ flag: String) throws -> Bool {
            switch value(flag) {
            case nil, "false": return false
            case "true": return true
            case let text?: throw ValidationError("\(name(flag)) must be true or false, not \"\(text)\"")
            }
        }
    }
}
