import Foundation
import PasskeyTestSupport
import PasskeyWire

/// Drives ceremonies against server processes with a software authenticator, as a browser would: options from one
/// client, the authenticator's answer to another (or to several at once).
struct CeremonyDriver {
    var device: TestAuthenticator

    init(credentialID: [UInt8]) throws {
        device = try TestAuthenticator()
        device.credentialID = credentialID
    }

    /// Asks `client` for registration options and returns the body to post to `/verify-registration`, or the answer
    /// that refused the options.
    mutating func registrationBody(from client: ProcessClient, username: String?) async -> Result<JSONValue, AnswerError> {
        let path = username.map { "/generate-registration-options?username=\($0)" } ?? "/generate-registration-options"
        let options = await client.call(.get, path)
        guard options.status == 200, let challenge = options["challenge"]?.stringValue, let key = options["challengeKey"] else {
            return .failure(AnswerError(answer: options))
        }
        device.userHandle = options["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) ?? []
        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
        var body: JSONObject = ["challengeKey": key, "cred": device.registration(clientData: clientData).json]
        if let username { body["username"] = .string(username) }
        return .success(.object(body))
    }

    /// Asks `client` for sign-in options and returns the signed body to post to `/verify-authentication`.
    func authenticationBody(from client: ProcessClient, username: String?, signCount: UInt32) async throws -> Result<JSONValue, AnswerError> {
        let path = username.map { "/generate-authentication-options?username=\($0)" } ?? "/generate-authentication-options"
        let options = await client.call(.get, path)
        guard options.status == 200, let challenge = options["challenge"]?.stringValue, let key = options["challengeKey"] else {
            return .failure(AnswerError(answer: options))
        }
        let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: challenge)
        let authData = device.authData(for: "get") { $0.signCount = signCount }.build()
        let assertion = try device.assertion(authData: authData, clientData: clientData)
        return .success(["challengeKey": key, "cred": assertion.json])
    }
}

/// A refused options request, carried out of a `Result`.
struct AnswerError: Error {
    let answer: HTTPAnswer
}
