import Hummingbird
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// Passkey sign-in, added to the app with the relying-party library: the app's users keep their ids, a passkey
/// account is linked to each on first use, and a passkey sign-in starts the app's own session.
struct PasskeyRoutes<Repository: CeremonyRepository> {
    let passkeys: CeremonyService<Repository>
    let users: AppUsers

    /// Options for the browser's `navigator.credentials` (`publicKey`), and the key that finds the ceremony again.
    struct Started: ResponseCodable {
        var challengeKey: String
        var publicKey: JSONValue
    }

    struct Finish<Credential: Decodable & Sendable>: Decodable, Sendable {
        var challengeKey: String
        var credential: Credential
    }

    struct Added: ResponseCodable { var credentialId: String }

    func addRoutes(to router: Router<BasicRequestContext>) {
        // A signed-in user adds a passkey.
        router.post("passkeys/register/options") { request, _ -> Started in
            let user = try await users.signedIn(request)
            let account = try await run { try await passkeys.account(forAppUser: user.id, name: user.email, displayName: user.name) }
            let (options, key) = try await run { try await passkeys.appendOptions(for: account) }
            return Started(challengeKey: key, publicKey: options.json)
        }
        // The challenge names the account it was made for: completing it needs nothing else.
        router.post("passkeys/register") { request, context -> Added in
            let body = try await request.decode(as: Finish<RegistrationResponseJSON>.self, context: context)
            let added = try await run {
                try await passkeys.verifyRegistration(body.credential, challengeKey: body.challengeKey, username: nil, at: .append)
            }
            return Added(credentialId: Base64URL.encode(added.credential.id))
        }
        // Anyone signs in with a passkey (no username: the passkey names its account).
        router.post("passkeys/sign-in/options") { _, _ -> Started in
            let (options, key) = try await run { try await passkeys.authenticationOptions(username: nil) }
            return Started(challengeKey: key, publicKey: options.json)
        }
        router.post("passkeys/sign-in") { request, context -> AppUsers.Session in
            let body = try await request.decode(as: Finish<AuthenticationResponseJSON>.self, context: context)
            let signIn = try await run { try await passkeys.verifyAuthentication(body.credential, challengeKey: body.challengeKey) }
            guard let id = signIn.externalUserID, let user = await users.user(id: id) else {
                throw HTTPError(.unauthorized, message: "This passkey belongs to no user of this app.")
            }
            return AppUsers.Session(session: await users.startSession(for: user.id), user: user)
        }
    }

    /// The library's refusals as the app's HTTP errors: its stable code and a message safe to show, with the status
    /// the code's catalog entry gives it (`ErrorCode.status`: 409 for `username_taken`, 503 for `busy`…).
    func run<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as RelyingPartyError {
            throw HTTPError(HTTPResponse.Status(code: error.code.status), message: "\(error.code): \(error.message)")
        }
    }
}
