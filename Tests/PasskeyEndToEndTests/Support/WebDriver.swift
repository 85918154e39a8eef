import Foundation
import PasskeyWire

/// A W3C WebDriver session spoken to as plain JSON over HTTP (chromedriver), with the WebAuthn extension's virtual
/// authenticator commands. Only what the end-to-end test needs.
struct WebDriver: Sendable {
    /// chromedriver's port on 127.0.0.1.
    let port: Int
    let sessionID: String

    /// The key under which WebDriver returns an element reference.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// A command WebDriver refused, with its error code and message.
    struct CommandError: Error, CustomStringConvertible {
        let command: String
        let status: Int
        let error: String
        let message: String
        var description: String { "WebDriver \(command) failed (HTTP \(status)): \(error): \(message)" }
    }

    /// Creates a session running `browser` headless, with the given extra arguments.
    static func newSession(port: Int, browser: URL, arguments: [String]) async throws -> WebDriver {
        let capabilities: JSONValue = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": ["binary": .string(browser.path), "args": .array(arguments.map(JSONValue.string))],
                ]
            ]
        ]
        let value = try await send("POST", port: port, path: "/session", body: capabilities, timeout: 60, command: "new session")
        guard let id = value.objectValue?["sessionId"]?.stringValue else {
            throw CommandError(command: "new session", status: 200, error: "no session id", message: value.serialized())
        }
        return WebDriver(port: port, sessionID: id)
    }

    /// Whether chromedriver answers `GET /status` with `ready: true`.
    static func isReady(port: Int) async -> Bool {
        let value = try? await send("GET", port: port, path: "/status", timeout: 2, command: "status")
        return value?.objectValue?["ready"] == true
    }

    /// Asks chromedriver to close every session and its browser, then exit.
    static func shutdown(port: Int) async {
        _ = try? await send("GET", port: port, path: "/shutdown", timeout: 10, command: "shutdown")
    }

    // MARK: Session commands

    /// Sends a command in this session: `path` is relative to `/session/<id>/`.
    @discardableResult
    func command(_ method: String, _ path: String, _ body: JSONValue? = nil, timeout: TimeInterval = 30) async throws -> JSONValue {
        let fullPath = "/session/\(sessionID)" + (path.isEmpty ? "" : "/" + path)
        // POST always carries a JSON object; GET and DELETE carry no body. (Not `?? nil`: JSONValue is
        // ExpressibleByNilLiteral, so that would send the text `null`.)
        let payload: JSONValue? = method == "POST" ? (body ?? .object([:])) : body
        return try await Self.send(method, port: port, path: fullPath, body: payload, timeout: timeout, command: "\(method) \(path)")
    }

    func navigate(to url: String) async throws {
        try await command("POST", "url", ["url": .string(url)])
    }

    /// The element `selector` (CSS) matches; fails when there is none.
    func element(_ selector: String) async throws -> Element {
        let value = try await command("POST", "element", ["using": "css selector", "value": .string(selector)])
        guard let id = value.objectValue?[Self.elementKey]?.stringValue else {
            throw CommandError(command: "find \(selector)", status: 200, error: "no element reference", message: value.serialized())
        }
        return Element(driver: self, id: id, selector: selector)
    }

    /// The PNG screenshot of the viewport.
    func screenshot() async throws -> Data {
        let value = try await command("GET", "screenshot")
        guard let base64 = value.stringValue, let data = Data(base64Encoded: base64) else {
            throw CommandError(command: "screenshot", status: 200, error: "not base64", message: String(value.serialized().prefix(200)))
        }
        return data
    }

    /// Ends the session and closes the browser.
    func delete() async {
        _ = try? await command("DELETE", "", timeout: 20)
    }

    // MARK: WebAuthn extension (virtual authenticators)

    /// Adds a virtual authenticator and returns its ID.
    func addVirtualAuthenticator(_ options: JSONValue) async throws -> String {
        let value = try await command("POST", "webauthn/authenticator", options)
        guard let id = value.stringValue else {
            throw CommandError(command: "add virtual authenticator", status: 200, error: "no authenticator id", message: value.serialized())
        }
        return id
    }

    /// The credentials stored on a virtual authenticator (credentialId, isResidentCredential, rpId, userHandle, …).
    func credentials(authenticator: String) async throws -> [JSONObject] {
        let value = try await command("GET", "webauthn/authenticator/\(authenticator)/credentials")
        return (value.arrayValue ?? []).compactMap(\.objectValue)
    }

    /// Puts a credential (as ``credentials(authenticator:)`` lists it, private key included) on a virtual authenticator.
    func addCredential(_ credential: JSONObject, authenticator: String) async throws {
        try await command("POST", "webauthn/authenticator/\(authenticator)/credential", .object(credential))
    }

    func removeCredential(_ credentialID: String, authenticator: String) async throws {
        try await command("DELETE", "webauthn/authenticator/\(authenticator)/credentials/\(credentialID)")
    }

    // MARK: Elements

    struct Element: Sendable {
        let driver: WebDriver
        let id: String
        let selector: String

        private var path: String { "element/\(id)" }

        func clear() async throws { try await driver.command("POST", path + "/clear") }
        func type(_ text: String) async throws { try await driver.command("POST", path + "/value", ["text": .string(text)]) }
        func click() async throws { try await driver.command("POST", path + "/click") }
        func text() async throws -> String { try await driver.command("GET", path + "/text").stringValue ?? "" }
        /// A DOM property such as `className` or `value`, as a string (empty when null).
        func property(_ name: String) async throws -> String {
            try await driver.command("GET", path + "/property/\(name)").stringValue ?? ""
        }
    }

    // MARK: Transport

    /// One HTTP round trip; returns the response's `value`, or throws the WebDriver error it carries.
    static func send(_ method: String, port: Int, path: String, body: JSONValue? = nil, timeout: TimeInterval, command: String) async throws -> JSONValue {
        let response = try await LoopbackHTTP.request(method, port: port, path: path, body: body?.serializedBytes, timeout: timeout)
        let json = (try? JSONValue.parse(response.body, maximumDepth: 64)) ?? .string(String(decoding: response.body, as: UTF8.self))
        let value = json.objectValue?["value"] ?? .null
        guard (200..<300).contains(response.status) else {
            let error = value.objectValue?["error"]?.stringValue ?? "http \(response.status)"
            let message = value.objectValue?["message"]?.stringValue ?? String(json.serialized().prefix(500))
            throw CommandError(command: command, status: response.status, error: error, message: message)
        }
        return value
    }
}
