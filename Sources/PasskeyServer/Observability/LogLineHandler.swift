import Foundation
public import Logging
import PasskeyWire
import Synchronization

/// Writes one line per log event to standard error, in swift-log's stream format
/// (`<time> <level> <label>: key=value … [<source>] <message>`), with what clients control made harmless.
///
/// Log values carry text from requests (an origin from client data, a user agent, a username). Written as is, a line
/// feed in one forges a whole log line and an escape sequence recolours a terminal; a 40 000-character origin fills the
/// log. Here every control character (C0, DEL, C1, the Unicode line and paragraph separators, and the bidirectional
/// controls that reorder what follows them: `DisplayEscaping.isUnsafe(_:)`) in the message and in metadata is written as a
/// `\u{…}` escape, and each value is cut to ``maximumValueLength`` characters with a note of how
/// many were left out. The line itself still ends with one line feed, and is cut at ``maximumLineLength`` bytes.
///
/// Lines go to standard error with `write(2)`, one call per line under a lock that the copies of a logger share (so
/// lines from concurrent requests never interleave), and errors are ignored: a logger must not take the server down
/// when its output went away (Foundation's `FileHandle.write` traps on a broken pipe).
public struct LogLineHandler: LogHandler {
    public static let maximumValueLength = 512
    /// Longest line written, in bytes: short enough for one write to a pipe to stay whole next to other writers' lines.
    public static let maximumLineLength = 4_000

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let output: Output
    /// Shared by the copies of a logger: the time is formatted once a second, not once a line.
    private let clock = LogClock()

    /// Where finished lines go.
    enum Output: Sendable {
        case standardError(StandardError)
        case lines(@Sendable (String) -> Void)
    }

    /// A handler for `label` that writes to standard error. Copies of the logger (every request's) share its lock.
    public init(label: String) {
        self.label = label
        output = .standardError(StandardError())
    }

    /// A handler that hands each finished line to `write` (tests).
    public init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        output = .lines(write)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // The handler's metadata (the request id) and the call's, the call's winning, sorted by key: an array of a few
        // pairs, not a merged dictionary.
        let explicit = event.metadata ?? [:]
        var pairs: [(key: String, value: Logger.Metadata.Value)] = []
        pairs.reserveCapacity(metadata.count + explicit.count + 1)
        for (key, value) in explicit { pairs.append((key, value)) }
        for (key, value) in metadata where explicit[key] == nil { pairs.append((key, value)) }
        if let error = event.error {
            pairs.removeAll { $0.key == "error.message" }
            pairs.append(("error.message", .string(String(describing: error))))
        }
        pairs.sort { $0.key < $1.key }

        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: clock.now().utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: event.level.rawValue.utf8)  // not "\(level)": an enum without a description is printed through reflection
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: label.utf8)
        line.append(UInt8(ascii: ":"))
        for (key, value) in pairs {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: Self.safe(key).utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: Self.safe(Self.text(value)).utf8)
        }
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: Self.safe(event.source).utf8)
        line.append(contentsOf: "] ".utf8)
        line.append(contentsOf: Self.safe(event.message.description).utf8)
        Self.limit(&line)
        line.append(0x0A)
        switch output {
        case .standardError(let standardError): standardError.write(line)
        case .lines(let write): write(String(decoding: line, as: UTF8.self))
        }
    }

    /// `line` cut to ``maximumLineLength`` bytes at a scalar boundary, marked with `…` when cut.
    static func limit(_ line: inout [UInt8]) {
        guard line.count > maximumLineLength else { return }
        var end = maximumLineLength - 3
        // Back to the first byte of a scalar: continuation bytes are 0b10xxxxxx.
        while end > 0 && line[end] & 0xC0 == 0x80 { end -= 1 }
        line.removeSubrange(end...)
        line.append(contentsOf: "…".utf8)
    }

    /// A metadata value as swift-log's stream handler writes it.
    static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array, .dictionary: value.description
        }
    }

    /// `text` with control characters escaped, cut to ``maximumValueLength`` characters.
    static func safe(_ text: String) -> String { DisplayEscaping.escape(text, limit: maximumValueLength) }

    static func timestamp() -> String { LogClock.format(time(nil)) }
}

/// The local time of log lines (`2026-11-27T01:02:03+0000`), formatted at most once per second: `localtime_r` and
/// `strftime` cost more than the rest of a request's line.
final class LogClock: Sendable {
    private let last = Mutex<(second: time_t, text: String)>((-1, ""))

    func now() -> String {
        let second = time(nil)
        if let cached = last.withLock({ $0.second == second ? $0.text : nil }) { return cached }
        let text = Self.format(second)
        last.withLock { $0 = (second, text) }
        return text
    }

    static func format(_ second: time_t) -> String {
        var now = second
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "-" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard let base = buffer.baseAddress else { return "-" }
            let length = strftime(base, 64, "%Y-%m-%dT%H:%M:%S%z", &parts)
            return String(decoding: UnsafeRawBufferPointer(start: base, count: length), as: UTF8.self)
        }
    }
}

/// Standard error written with `write(2)`, one line at a time.
final class StandardError: Sendable {
    private let lock = Mutex(())

    func write(_ line: [UInt8]) {
        lock.withLock { _ in
            line.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return  // the output is gone or full: drop the line rather than fail
                    }
                }
            }
        }
    }
}
