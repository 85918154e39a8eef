import PasskeyWire
import Testing

@Suite("JSON: large objects")
struct JSONLargeObjectTests {
    /// Objects past the linear scan keep a set of names: a repeated name is found wherever it is, in linear time.
    @Test("a repeated member name is refused in a large object as in a small one, at the repeat's offset")
    func repeatedNameInLargeObject() throws {
        for count in [3, 31, 32, 33, 5_000] {
            let members = (0..<count).map { "\"m\($0)\":\($0)" }
            let unique = "{" + members.joined(separator: ",") + "}"
            guard case .object(let object) = try JSONValue.parse(Array(unique.utf8)) else { throw JSONTestFailure("not an object") }
            #expect(object.count == count)
            for repeated in [0, count / 2, count - 1] {
                let text = "{" + (members + ["\"m\(repeated)\":0"]).joined(separator: ",") + "}"
                do {
                    _ = try JSONValue.parse(Array(text.utf8))
                    Issue.record("\(count) members, m\(repeated) twice: parsed")
                } catch {
                    #expect(error.memberName == "m\(repeated)", "\(count): \(error)")
                }
            }
        }
    }
}

struct JSONTestFailure: Error {
    let description: String
    init(_ description: String) { self.description = description }
}
