import Logging
import PasskeyServer
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
}
