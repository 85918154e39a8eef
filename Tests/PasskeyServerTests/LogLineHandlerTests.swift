import Foundation
import Logging
@testable import PasskeyServer
import PasskeyTestSupport
import PasskeyServerTestSupport
import Testing

@Suite("Log lines")
struct LogLineHandlerTests {
    func logger(_ capture: LogCapture) -> Logger {
        Logger(label: "passkey-server") { label in LogLineHandler(label: label) { capture.append($0) } }
    }

    @Test("text from a request cannot forge a log line or send terminal escapes, and a long value is cut")
    func clientText() {
        let capture = LogCapture()
        let forged = "http://x\n2026-11-22T07:00:00+0000 critical passkey-server: FORGED admin=root\u{1B}[31mRED"
        logger(capture).notice(
            "ceremony failed", metadata: ["detail": .string(forged), "origin": .string(String(repeating: "a", count: 40_000))])
        let lines = capture.lines
        #expect(lines.count == 1)
        let line = lines.first ?? ""
        #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("\n"))
        #expect(!line.contains("\u{1B}"))
        #expect(line.contains(#"detail=http://x\u{a}2026-11-22T07:00:00+0000 critical passkey-server: FORGED admin=root\u{1b}[31mRED"#), "\(line)")
        #expect(line.contains("origin=" + String(repeating: "a", count: LogLineHandler.maximumValueLength) + "…(39488 more) "), "\(line.count)")
        #expect(line.contains(" notice passkey-server: detail=") && line.hasSuffix(" [PasskeyServerTests] ceremony failed\n"), "\(line)")
    }

    @Test("a line starts with the local time to the second and the level's name; durations show milliseconds with one decimal")
    func timeAndDuration() throws {
        let capture = LogCapture()
        let before = LogLineHandler.timestamp()
        logger(capture).warning("slow", metadata: ["ms": .string(RequestLog.milliseconds(.microseconds(12_345)))])
        let after = LogLineHandler.timestamp()
        let line = try #require(capture.lines.first)
        let time = String(line.prefix { $0 != " " })
        #expect(time == before || time == after, "\(line)")
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}/) != nil, "\(time)")
        #expect(line.hasPrefix(time + " warning passkey-server: ms=12.3 ["), "\(line)")
        #expect(RequestLog.milliseconds(.zero) == "0.0")
        #expect(RequestLog.milliseconds(.microseconds(49)) == "0.0")
        #expect(RequestLog.milliseconds(.microseconds(50)) == "0.1")
        #expect(RequestLog.milliseconds(.microseconds(999_960)) == "1000.0")
        #expect(RequestLog.milliseconds(.seconds(2) + .milliseconds(7)) == "2007.0")
        #expect(RequestLog.milliseconds(.milliseconds(-3)) == "0.0")
    }

    @Test("C1 controls, DEL, separators and direction controls are escaped in short values too", arguments: ["a\u{85}b", "a\u{7F}b", "a\u{9B}31mb", "a\u{2029}b", "a\u{202E}b", "a\u{61C}b"])
    func shortControls(value: String) {
        let capture = LogCapture()
        logger(capture).info("x", metadata: ["v": .string(value)])
        let line = capture.lines.first ?? ""
        let escaped = "a\\u{\(String(value.unicodeScalars.dropFirst().first?.value ?? 0, radix: 16))}"
        #expect(line.contains(" v=\(escaped)"), "\(line.debugDescription)")
        #expect(!line.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || [0x2029, 0x202E, 0x61C].contains($0.value) })
    }

    @Test("a line is cut at 4 000 bytes, so one write to a pipe stays whole")
    func longLine() {
        let capture = LogCapture()
        var metadata: Logger.Metadata = [:]
        for index in 0..<20 { metadata["key\(index)"] = .string(String(repeating: "é", count: 500)) }
        logger(capture).notice("many values", metadata: metadata)
        let line = capture.lines.first ?? ""
        #expect(line.utf8.count <= LogLineHandler.maximumLineLength + 1 && line.hasSuffix("…\n"), "\(line.utf8.count)")
        #expect(line.filter { $0 == "\n" }.count == 1)
    }

    @Test("the server binary writes its log through this handler: a client's origin cannot forge a line")
    func serverProcess() async throws {
        let log = temporaryPath("passkey-log", extension: "txt").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let server = try await ServerProcess.start(database: "memory:", port: try LocalPorts.free(), logPath: log)
        let client = ProcessClient(port: server.port)
        let options = await client.call(.get, "/generate-registration-options?username=ann")
        let device = try Device(server: TestServer { $0.rpID = "example.com" })
        let forged = "https://x\n2026-11-22T07:00:00+0000 critical passkey-server: FORGED"
        let answer = await client.call(
            .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json, origin: forged)])
        await client.close()
        server.stop()
        #expect(answer["error"] == "origin_mismatch", "\(answer.json)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains(#"https://x\u{a}2026-11-22T07:00:00+0000 critical passkey-server: FORGED"#), "\(text)")
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("2026-11-22T07:00:00+0000 critical") })
    }

    @Test("the message, logger metadata and separators are escaped too; ordinary text is written as is")
    func message() {
        let capture = LogCapture()
        var logger = logger(capture)
        logger[metadataKey: "request_id"] = "abc\r\n"
        logger.info("two\nlines\u{2028}and Zoë 👩‍💻")
        let line = capture.lines.first ?? ""
        #expect(line.hasSuffix(#": request_id=abc\u{d}\u{a} [PasskeyServerTests] two\u{a}lines\u{2028}and Zoë 👩‍💻"# + "\n"), "\(line)")
        #expect(line.split(separator: " ").first?.count == 24)  // 2026-11-22T07:00:00+0000
    }

    @Test("the call's metadata wins over the logger's for the same key, and keys are written sorted")
    func metadataOrder() {
        let capture = LogCapture()
        var logger = logger(capture)
        logger[metadataKey: "request_id"] = "r1"
        logger[metadataKey: "method"] = "from-logger"
        logger.info("request", metadata: ["status": "200", "method": "GET", "path": "/x"])
        let line = capture.lines.first ?? ""
        #expect(line.contains(": method=GET path=/x request_id=r1 status=200 [PasskeyServerTests] request\n"), "\(line)")
        #expect(!line.contains("from-logger"))
    }
}
