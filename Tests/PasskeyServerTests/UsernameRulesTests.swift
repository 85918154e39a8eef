import Foundation
@testable import PasskeyRelyingParty
import Testing

/// The ASCII shortcut of ``UsernameRules/normalized(_:newAccount:)`` (every sign-in's options take it) against the
/// full rules it stands in for.
@Suite("Username rules: the ASCII shortcut")
struct UsernameRulesTests {
    /// The name, or the error code, under both paths.
    static func outcomes(_ name: String, newAccount: Bool) -> (shortcut: String, full: String) {
        let shortcut: String
        do { shortcut = try UsernameRules.normalized(name, newAccount: newAccount) ?? "<nil>" } catch { shortcut = "error " + error.code.rawValue }
        let full: String
        do { full = try UsernameRules.normalizedFully(name, newAccount: newAccount) } catch { full = "error " + error.code.rawValue }
        return (shortcut, full)
    }

    @Test("printable ASCII names, trimmed, blank, at and past the length limit: the shortcut answers as the full rules do")
    func sameAnswers() {
        var generator = SystemRandomNumberGenerator()
        var names = ["ann", " ann ", "   ", " ", "a b", "  Ann.Lee@example.com", "~!#$%^&*()_+{}|:<>?", String(repeating: "x", count: 64),
                     String(repeating: "y", count: 65) + " ", " " + String(repeating: "z", count: 300)]
        for _ in 0..<2_000 {
            let length = Int.random(in: 1...80, using: &generator)
            names.append(String(decoding: (0..<length).map { _ in UInt8.random(in: 0x20...0x7e, using: &generator) }, as: UTF8.self))
        }
        for name in names {
            for newAccount in [false, true] {
                let (shortcut, full) = Self.outcomes(name, newAccount: newAccount)
                #expect(shortcut == full, "\(name.debugDescription), new account \(newAccount)")
            }
        }
        #expect(Self.outcomes(" ann ", newAccount: false).shortcut == "ann")
        #expect(Self.outcomes("   ", newAccount: false).shortcut == "error username_invalid")
    }

    @Test("a name with anything but printable ASCII takes the full rules: tabs, accents, zero-width spaces")
    func otherNames() throws {
        #expect(try UsernameRules.normalized("\tann") == "ann")  // a tab is White_Space: trimmed
        #expect(try UsernameRules.normalized("Zoe\u{0301}") == "Zoé")  // composed
        #expect(throws: RelyingPartyError.self) { try UsernameRules.normalized("\u{200B}ann") }
    }
}
