import Foundation
import Hummingbird

/// The app as it was before passkeys: its own users table and sessions (kept in memory here; a real app has them in its
/// database). Nothing in this file knows about passkeys.
actor AppUsers {
    struct User: Sendable, Codable, ResponseCodable {
        var id: String
        var email: String
        var name: String
    }

    private var users: [String: User] = [:]
    private var sessions: [String: String] = [:]

    func signUp(email: String, name: String) -> User {
        let user = User(id: UUID().uuidString.lowercased(), email: email, name: name)
        users[user.id] = user
        return user
    }

    func user(id: String) -> User? { users[id] }

    /// A new session for the user: the bearer token the app's clients send.
    func startSession(for userID: String) -> String {
        let token = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()
        sessions[token] = userID
        return token
    }

    /// The signed-in user of `request` (`Authorization: Bearer <session>`), or 401.
    func signedIn(_ request: Request) throws -> User {
        let header = request.headers[.authorization] ?? ""
        guard header.hasPrefix("Bearer "), let id = sessions[String(header.dropFirst("Bearer ".count))], let user = users[id] else {
            throw HTTPError(.unauthorized, message: "Sign in first.")
        }
        return user
    }

    struct SignUp: Decodable {
        var email: String
        var name: String
    }

    struct Session: ResponseCodable {
        var session: String
        var user: User
    }

    /// The app's own routes: sign up (its old login stands for any, password or email link), and who am I.
    nonisolated func addRoutes(to router: Router<BasicRequestContext>) {
        router.post("signup") { request, context -> Session in
            let form = try await request.decode(as: SignUp.self, context: context)
            let user = await self.signUp(email: form.email, name: form.name)
            return Session(session: await self.startSession(for: user.id), user: user)
        }
        router.get("me") { request, _ -> User in try await self.signedIn(request) }
    }
}
