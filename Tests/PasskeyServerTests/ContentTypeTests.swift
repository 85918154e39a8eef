import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import PasskeyServer
import PasskeyWire
import PasskeyServerTestSupport
import Testing

/// JSON endpoints read only bodies declared JSON (issue: bodies were parsed whatever their type, so a cross-site form
/// or `text/plain` POST, which a browser sends without a preflight, reached them).
@Suite("A body not declared JSON is 415 content_type_unsupported")
struct ContentTypeTests {
    static func post(_ client: some TestClientProtocol, _ path: String, body: String, contentType: String?) async throws -> JSONResponse {
        var headers: HTTPFields = [:]
        if let contentType { headers[.contentType] = contentType }
        let response = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
        let json = (try? JSONValue.parse(Array(response.body.readableBytesView))) ?? .null
        return JSONResponse(status: response.status, headers: response.headers, json: json)
    }

    @Test("what a cross-site page can send without a preflight is refused, on every JSON endpoint", arguments: [
        "/generate-registration-options", "/verify-registration", "/generate-authentication-options", "/verify-authentication",
        "/api/registration-challenge", "/api/complete-authentication",
    ])
    func crossSiteTypes(path: String) async throws {
        let server = TestServer()
        try await server.run { client in
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain; charset=utf-8", nil] {
                let answer = try await Self.post(client, path, body: #"{"username":"ann"}"#, contentType: type)
                #expect(answer.status.code == 415 && answer["error"] == "content_type_unsupported", "\(path) \(type ?? "none"): \(answer.json)")
            }
        }
    }

    @Test("application/json in any case and with parameters, +json types, and no body without a type are read")
    func acceptedTypes() async throws {
        let server = TestServer()
        try await server.run { client in
            for type in ["application/json", "Application/JSON; charset=utf-8", "application/vnd.example+json"] {
                let answer = try await Self.post(client, "/generate-registration-options", body: #"{"username":"ann"}"#, contentType: type)
                #expect(answer.status == .ok, "\(type): \(answer.json)")
            }
            let empty = try await client.execute(uri: "/generate-authentication-options", method: .post, headers: [:], body: nil)
            #expect(empty.status == .ok)
        }
    }

    @Test("the media type is read up to its parameters, around them spaces and tabs, in any ASCII letter case")
    func mediaTypes() {
        for accepted in [
            "application/json", " application/json ", "\tAPPLICATION/JSON\t;charset=utf-8", "application/json;", "application/problem+json",
            "Application/Vnd.Example+JSON ; q=1", "application/+json",
        ] {
            #expect(Request.isJSONMediaType(accepted), "\(accepted.debugDescription)")
        }
        for refused in [
            "", ";application/json", "application/jsonx", "application/json5", "text/json", "application/x+json5", "application /json",
            "application/", "+json", "applicationjson", "application/json\u{A0}",
        ] {
            #expect(!Request.isJSONMediaType(refused), "\(refused.debugDescription)")
        }
    }
}
