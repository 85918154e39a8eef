import Foundation
import Testing
import PasskeyTestSupport

/// `deploy/passkey-server.service`, checked by systemd's own tools: it parses without warnings, and its sandbox keeps
/// the exposure `systemd-analyze security` reports low. Skipped where systemd-analyze is missing, except on CI.
@Suite("The systemd unit verifies and is hardened")
struct SystemdUnitTests {
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    static let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static var unit: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/passkey-server.service")
    }

    /// Runs systemd-analyze with `arguments`: its exit status and everything it printed.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(analyze, "systemd-analyze is not installed"))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("systemd-analyze verify has nothing to say", .enabled(if: analyze != nil || required, "systemd-analyze is not installed"))
    func verify() throws {
        // The binary is where the unit says only once installed: verify a copy that starts /bin/true instead.
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        #expect(text.contains("ExecStart=/opt/passkey-server/passkey-server --config /etc/passkey-server.conf"))
        let copy = temporaryPath("passkey-server", extension: "service")
        try text.replacingOccurrences(of: "/opt/passkey-server/passkey-server", with: "/bin/true").write(to: copy, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: copy) }
        let (status, output) = try Self.run(["verify", "--man=no", copy.path])
        #expect(status == 0 && output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(output)")
    }

    @Test("systemd-analyze security rates the sandbox's exposure 2.0 or lower", .enabled(if: analyze != nil || required, "systemd-analyze is not installed"))
    func exposure() throws {
        let (status, output) = try Self.run(["security", "--offline=true", "--no-pager", Self.unit.path])
        #expect(status == 0, "\(output)")
        let figure = output.split(separator: "\n").first { $0.contains("Overall exposure level") }
            .flatMap { line in line.split(separator: " ").compactMap { Double($0) }.first }
        let exposure = try #require(figure, "\(output)")
        #expect(exposure <= 2.0, "\(output)")
    }
}
