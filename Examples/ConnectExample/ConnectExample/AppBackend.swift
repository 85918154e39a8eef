import Foundation
import PasskeyClient

/// The app's own backend, which keeps its accounts, its password login and its sessions, and talks to the passkey
/// server with an API key the app never sees (Examples/connect-backend/backend.py has these four endpoints).
struct AppBackend: Sendable {
    /// Why a call to the backend failed, in words for the person.
    struct Failure: Error, Sendable {
        var message: String
    }

    let baseURL: URL
    var session: URLSession = .shared

    /// The existing login: the app's session for a username and password.
    func login(username: String, password: String) async throws(Failure) -> String {
        let answer = try await post("login", ["username": username, "password": password])
        guard let session = answer["session"] as? String else { throw Failure(message: "The sign-in answer has no session.") }
        return session
    }

    /// A connect token of `kind` for the user of `session`: the ``ConnectTokenProvider`` the flows call.
    func connectToken(_ kind: ConnectTokenKind, session: String) async throws(Failure) -> String {
        let answer = try await post("passkeys/token", ["type": kind.rawValue], session: session)
        guard let token = answer["token"] as? String else { throw Failure(message: "The backend gave no connect token.") }
        return token
    }

    /// A passkey sign-in: the backend verifies `signedPasskeyData` with the passkey server and starts its own session.
    func exchange(signedPasskeyData: String) async throws(Failure) -> String {
        let answer = try await post("passkeys/login", ["signedPasskeyData": signedPasskeyData])
        guard let session = answer["session"] as? String else { throw Failure(message: "The sign-in answer has no session.") }
        return session
    }

    private func post(_ path: String, _ body: [String: String], session token: String? = nil) async throws(Failure)
        -> [String: Any]
    {
        var request = URLRequest(url: baseURL.appending(path: path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue(token, forHTTPHeaderField: "X-Session") }
        let data: Data
        let response: URLResponse
        do {
            request.httpBody = try JSONEncoder().encode(body)
            (data, response) = try await session.data(for: request)
        } catch {
            throw Failure(message: "The app's server could not be reached.")
        }
        let answer = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw Failure(message: answer["message"] as? String ?? "The app's server refused the request.")
        }
        return answer
    }
}
