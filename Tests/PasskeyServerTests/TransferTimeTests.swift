import Foundation
@testable import PasskeyServer
import Testing

@Suite("Export file: times")
struct TransferTimeTests {
    @Test("times are written in UTC to the millisecond and read back the same, before 1970 and on leap days too")
    func roundTrip() throws {
        let cases: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_800_000_000.123, "2027-01-15T08:00:00.123Z"),
            (951_782_400.999, "2000-02-29T00:00:00.999Z"),
            (-0.001, "1969-12-31T23:59:59.999Z"),
            (-2_208_945_600, "1900-01-01T12:00:00.000Z"),
            (253_402_300_799, "9999-12-31T23:59:59.000Z"),
        ]
        for (seconds, text) in cases {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(TransferTime.format(date) == text)
            let read = try #require(TransferTime.parse(text))
            #expect(abs(read.timeIntervalSince1970 - seconds) < 0.0005, "\(text)")
        }
    }

    /// An implementation we did not write: Foundation's formatter, which this one replaced.
    @Test("every millisecond time reads and writes as Foundation's ISO 8601 formatter does")
    func matchesFoundation() throws {
        let foundation = ISO8601DateFormatter()
        foundation.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = TransferTime.format(date)
            #expect(text == foundation.string(from: date))
            #expect(TransferTime.parse(text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == milliseconds, "\(text)")
            let whole = plain.string(from: date)
            #expect(TransferTime.parse(whole) == plain.date(from: whole), "\(whole)")
        }
    }

    @Test("offsets and longer fractions are read; anything else is not a time", arguments: [
        ("2026-11-21T10:00:00+01:30", 1_795_255_200.0 - 5_400), ("2026-11-21T10:00:00-00:00", 1_795_255_200),
        ("2026-11-21T10:00:00.5Z", 1_795_255_200.5), ("2026-11-21T10:00:00.123456789Z", 1_795_255_200.123456789),
    ])
    func accepted(text: String, seconds: Double) throws {
        let date = try #require(TransferTime.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test("malformed times are refused", arguments: [
        "", "2026-11-21", "2026-11-21T10:00:00", "2026-11-21 10:00:00Z", "2026-11-21t10:00:00Z", "2026-11-21T10:00:00z",
        "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
        "2026-11-21T24:00:00Z", "2026-11-21T10:60:00Z", "2026-11-21T10:00:60Z", "0000-01-01T00:00:00Z", "2026-1-21T10:00:00Z",
        "2026-11-21T10:00:00.Z", "2026-11-21T10:00:00.1234567890Z", "2026-11-21T10:00:00+0100", "2026-11-21T10:00:00+24:00",
        "2026-11-21T10:00:00Zjunk", "+2026-11-21T10:00:00Z", "２026-11-21T10:00:00Z",
    ])
    func refused(text: String) {
        #expect(TransferTime.parse(text) == nil)
    }
}
