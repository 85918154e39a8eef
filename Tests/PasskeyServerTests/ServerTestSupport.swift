import Foundation
import Hummingbird
import Logging
import HummingbirdTesting
import NIOCore
import PasskeyCore
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire
import Testing

struct JSONResponse {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let json: JSONValue

    var object: JSONObject { json.objectValue ?? [:] }
    subscript(_ name: String) -> JSONValue? { object[name] }

    /// These options with one bit of their challenge's byte at `index` flipped.
    func withChallengeBitFlipped(at index: Int) throws -> JSONValue {
        var bytes = try #require(self["challenge"]?.stringValue.flatMap(Base64URL.decode))
        try #require(bytes.indices.contains(index))
        bytes[index] ^= 0x01
        var changed = object
        changed["challenge"] = .string(Base64URL.encode(bytes))
        return .object(changed)
    }
}

extension TestClientProtocol {
    func call(_ method: HTTPRequest.Method, _ uri: String, json: JSONValue? = nil, raw: String? = nil, headers: HTTPFields = [:]) async throws -> JSONResponse {
        var headers = headers
        var body: ByteBuffer?
        if let json { body = ByteBuffer(bytes: json.serializedBytes) } else if let raw { body = ByteBuffer(string: raw) }
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await execute(uri: uri, method: method, headers: headers, body: body)
        let bytes = Array(response.body.readableBytesView)
        let json = bytes.isEmpty ? JSONValue.null : ((try? JSONValue.parse(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self)))
        return JSONResponse(status: response.status, headers: response.headers, json: json)
    }
}

/// A test authenticator speaking to the server at `origin` for RP ID `rpID`.
/// A class shared by the `@Sendable` test closures; each test drives its devices from one task at a time.
final class Device: @unchecked Sendable {
    var authenticator: TestAuthenticator
    let rpID: String
    let origin: String

    init(server: TestServer, credentialID: UInt8 = 0xc1) throws {
        authenticator = try TestAuthenticator()
        authenticator.credentialID = [UInt8](repeating: credentialID, count: 32)
        authenticator.origin = server.origin
        rpID = server.configuration.rpID
        origin = server.origin
    }

    /// Answers creation options as a browser would: the user handle becomes the device's, the challenge is signed over.
    func create(_ options: JSONValue, origin: String? = nil, flags: AuthenticatorData.Flags? = nil) -> JSONValue {
        let challenge = options.objectValue?["challenge"]?.stringValue ?? ""
        if let handle = options.objectValue?["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) {
            authenticator.userHandle = handle
        }
        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge, origin: origin ?? self.origin)
        let rpID = self.rpID
        let authData = authenticator.authData(for: "create") {
            $0.rpID = rpID
            if let flags { $0.flags = flags.union(.attestedCredentialData) }
        }.build()
        return authenticator.registration(authData: authData, clientData: clientData).json
    }

    /// `rpID`: the RP ID the authenticator data is scoped to, when not the server's.
    func get(
        _ options: JSONValue, signCount: UInt32 = 0, origin: String? = nil, flags: AuthenticatorData.Flags? = nil, rpID: String? = nil
    ) throws -> JSONValue {
        let challenge = options.objectValue?["challenge"]?.stringValue ?? ""
        let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: origin ?? self.origin)
        let rpID = rpID ?? self.rpID
        let authData = authenticator.authData(for: "get") {
            $0.rpID = rpID
            $0.signCount = signCount
            if let flags { $0.flags = flags }
        }.build()
        return try authenticator.assertion(authData: authData, clientData: clientData).json
    }
}

/// Collects log lines (message and metadata as text) so tests can check what the server logs.
final class LogCapture: @unchecked Sendable {
    private let collected = Collector<String>()
    var lines: [String] { collected.values }
    func append(_ line: String) { collected.append(line) }

    var logger: Logger {
        var logger = Logger(label: "test") { _ in CaptureHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct CaptureHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let all = self.metadata.merging(event.metadata ?? [:]) { $1 }
        capture.append("\(event.level) \(event.message) " + all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))
    }
}
