import Foundation
@testable import PasskeyServer
import Testing

@Suite("Event records: the requested name's trimming")
struct EventRecorderTrimTests {
    @Test("names with and without white space at their ends are trimmed exactly as Foundation trims them")
    func sameAsFoundation() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "~", " ", "\t", "\n", "\u{A0}", "\u{3000}", "é", "\u{200B}", "漢", "-", "@"]
        var names = ["", " ", "ann", " ann", "ann ", "\u{A0}ann", "ann\u{2028}", "~x~", "é", "\u{200B}ann\u{200B}"]
        for _ in 0..<2_000 {
            names.append((0..<Int.random(in: 1...8, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined())
        }
        for name in names {
            #expect(EventRecorder.trimmed(name) == name.trimmingCharacters(in: .whitespacesAndNewlines), "\(name.debugDescription)")
        }
    }
}
