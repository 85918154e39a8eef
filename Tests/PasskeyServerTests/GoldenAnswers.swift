import Foundation
import NIOCore
import HTTPTypes
import HummingbirdTesting
import PasskeyWire
import Testing

/// The shape of every JSON answer a scripted session gets, kept in `Golden/answers.json`: which members each answer
/// has, each member's JSON type, and null versus absent. Values (challenges, ids, times) are not part of it; error codes
/// are, in the entry's name.
///
/// Why: answers are a contract with code we did not write (the seeds' clients, py_webauthn, backends in any language).
/// When the way answers are built changes, the shapes recorded before the change prove the wire did not.
/// `PASSKEY_RECORD_GOLDEN=1 swift test --filter GoldenAnswerTests` writes the file anew; review its diff like code.
final class GoldenAnswers: @unchecked Sendable {
    // Guarded by `lock`: recorded from the test's task, read at its end.
    private let lock = NSLock()
    private var shapes: [String: JSONValue] = [:]

    /// Calls `uri` and records the answer's shape as `"<method> <pattern> <status>[ <error code>][ (<label>)]"`.
    @discardableResult
    func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ pattern: String, _ uri: String? = nil, json: JSONValue? = nil,
        form: String? = nil, headers: HTTPFields = [:], label: String? = nil
    ) async throws -> JSONResponse {
        let answer: JSONResponse
        if let form {
            // An OAuth endpoint's application/x-www-form-urlencoded body.
            var headers = headers
            headers[.contentType] = "application/x-www-form-urlencoded"
            let response = try await client.execute(uri: uri ?? pattern, method: method, headers: headers, body: ByteBuffer(string: form))
            let bytes = Array(response.body.readableBytesView)
            answer = JSONResponse(status: response.status, headers: response.headers, json: (try? JSONValue.parse(bytes)) ?? .null)
        } else {
            answer = try await client.call(method, uri ?? pattern, json: json, headers: headers)
        }
        var key = "\(method.rawValue) \(pattern) \(answer.status.code)"
        if answer.status.code >= 400, let code = answer["error"]?.stringValue { key += " \(code)" }
        if let label { key += " (\(label))" }
        let shape = Self.shape(of: answer.json)
        lock.withLock {
            if let earlier = shapes[key], earlier != shape {
                Issue.record("\(key) was answered in two shapes: label the calls apart")
            }
            shapes[key] = shape
        }
        return answer
    }

    /// The routes recorded, as `"<method> <pattern>"`.
    var routes: Set<String> {
        lock.withLock { Set(shapes.keys.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }) }
    }

    /// A JSON value's shape: objects keep their member names (sorted) with their members' shapes; arrays list the
    /// distinct shapes of their elements (sorted); anything else is its type's name.
    static func shape(of value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var members = JSONObject()
            for member in object.members.sorted(by: { $0.name < $1.name }) { members[member.name] = shape(of: member.value) }
            return .object(members)
        case .array(let elements):
            var distinct: [JSONValue] = []
            for element in elements.map(shape(of:)) where !distinct.contains(element) { distinct.append(element) }
            // Sorted: rows of equal time come in any order.
            return .array(distinct.sorted { $0.serialized(sortedKeys: true) < $1.serialized(sortedKeys: true) })
        default:
            return .string(value.typeName)
        }
    }

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/answers.json")

    /// Compares with the golden file (or writes it, with `PASSKEY_RECORD_GOLDEN=1`); each difference is one issue
    /// naming its answer.
    func check() throws {
        let recorded = lock.withLock { shapes }
        var document = JSONObject()
        for key in recorded.keys.sorted() { document[key] = recorded[key] }
        if ProcessInfo.processInfo.environment["PASSKEY_RECORD_GOLDEN"] == "1" {
            try Data(Self.pretty(.object(document)).utf8).write(to: Self.file)
            return
        }
        let golden = try JSONValue.parse(Array(Data(contentsOf: Self.file))).objectValue ?? [:]
        for member in golden.members {
            guard let now = recorded[member.name] else {
                Issue.record("\(member.name): no longer answered by the script")
                continue
            }
            if now != member.value { Issue.record("\(member.name): was \(member.value.serialized()), now \(now.serialized())") }
        }
        for key in recorded.keys.sorted() where golden[key] == nil {
            Issue.record("\(key): new answer, not in the golden file (record it with PASSKEY_RECORD_GOLDEN=1)")
        }
    }

    /// One member per line, indented, keys in order: a diff of the file reads as a diff of the contract.
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let object) where !object.members.isEmpty:
            let members = object.members.map { "\(inner)\(JSONValue.string($0.name).serialized()): \(pretty($0.value, indent: inner))" }
            return "{\n" + members.joined(separator: ",\n") + "\n\(indent)}"
        case .array(let elements) where !elements.isEmpty:
            return "[\n" + elements.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return value.serialized()
        }
    }
}
