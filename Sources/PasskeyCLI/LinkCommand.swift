import PasskeyAPI
import ArgumentParser
import Foundation
import PasskeyClient
import PasskeyWire

/// `passkey link`: redeems a recovery or onboarding link with the software authenticator.
struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Add a passkey to an account with a recovery or onboarding link (software authenticator).",
        discussion: """
            The link comes from the app's backend (POST /users/{id}/links), an operator (passkey-server users link) or \
            the dashboard: give it whole (https://…/#link=pal_…) or its pal_ token. A link works once; one made to \
            replace the account's passkeys deletes the others when the new one is stored. Exit status: 0 added, 1 \
            refused (the link is unknown, used, expired or revoked: account_link_invalid), 2 usage error or unreadable \
            credential file, 3 network error.
            """)

    @OptionGroup var server: ServerOptions
    @Argument(help: "The link, or its pal_ token.") var link: String
    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        // The new passkey is written only once the server has verified it (see PendingCredentialStore).
        let store = PendingCredentialStore(file: try storeOptions.fileStore(command: "link", writing: true))
        let (client, transport) = try server.makeClient(store: store)
        let result: PasskeyRegistrationResult
        do { result = try await client.redeemAccountLink(link) } catch {
            var explanation = server.explanation(for: error)
            if error.server?.code == .accountLinkInvalid {
                explanation = "the link is unknown, already used, expired or revoked; ask for a new one"
            } else if error.code == .invalidResponse, error.stage == .options {
                explanation = "that is not a link: give https://…/#link=pal_… or the pal_ token"
            }
            throw CeremonyFailure.report(error, command: "link", json: storeOptions.json, explanation: explanation)
        }
        try await CeremonyFailure.commit(store, command: "link", json: storeOptions.json)
        let replaced = transport.answer("links/verify", as: AccountLinkVerifyAnswer.self)?.replacedPasskeys ?? 0
        if storeOptions.json {
            print(
                JSONValue.object([
                    "ok": true, "verified": .bool(result.verified), "username": .optional(result.username), "userId": .string(result.userId),
                    "credentialId": .string(result.credentialId), "replacedPasskeys": .number(Double(replaced)),
                    "store": .string(storeOptions.storeURL.path),
                ]).prettyPrinted())
        } else {
            print("✓ added a passkey to \(result.username.map(shown) ?? "an anonymous account") on \(server.server)")
            print("  user id:       \(shown(result.userId))")
            print("  credential id: \(shown(result.credentialId))")
            if replaced > 0 { print("  replaced:      \(replaced) other passkey\(replaced == 1 ? "" : "s") of the account, deleted on the server") }
            print("  stored in:     \(storeOptions.storeURL.path)")
        }
    }
}
