import PasskeyAPI
import ArgumentParser
import Foundation
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyWire

/// `passkey register`: creates an account with a new passkey on a passkey server, as a device would.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create an account with a new passkey on a passkey server (software authenticator).",
        discussion: """
            Asks the server for creation options, creates a passkey in the credential file, and sends the response to \
            the server for verification. With --account-creation it does what iOS 26's sign-up sheet does: options \
            without a username, then the account named by the --contact picked (an email address or a phone number \
            in international form) and, with --name, the name given. Exit status: 0 registered, 1 refused (for \
            example the username or contact is already registered), 2 usage error or unreadable credential file, \
            3 network error.
            """)

    @OptionGroup var server: ServerOptions
    @Option(name: .long, help: "The account's username (or --anonymous).") var username: String?
    @Flag(name: .long, help: "Create an anonymous account: the server names it (anonymous-…, the name its passkey carries); sign in later with `passkey login`, with or without that name.")
    var anonymous = false
    @Option(name: .long, help: "The name shown for the account. Default: the username.") var displayName: String?
    @Flag(name: .long, help: "Sign up as iOS 26's account-creation sheet does: the account is named by --contact.")
    var accountCreation = false
    @Option(name: .long, help: "With --account-creation: the email address or phone number (+ and digits) picked in the sheet.")
    var contact: String?
    @Option(name: .long, help: "With --account-creation: the name given in the sheet (the account's display name).") var name: String?
    @OptionGroup var storeOptions: StoreOptions

    /// The SDK reads an empty or absent username as "anonymous account"; here an empty one is almost always a script's
    /// empty variable, so it is refused, and an anonymous account is made only when asked for with --anonymous.
    func validate() throws {
        if accountCreation {
            guard let contact, !contact.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ValidationError("--account-creation needs --contact EMAIL-OR-PHONE: the contact picked in the sign-up sheet names the account")
            }
            guard username == nil, !anonymous, displayName == nil else {
                throw ValidationError("--account-creation names the account by --contact (and --name): leave out --username, --anonymous and --display-name")
            }
            return
        }
        guard contact == nil, name == nil else { throw ValidationError("--contact and --name go with --account-creation") }
        switch (username, anonymous) {
        case (nil, false): throw ValidationError("give --username NAME, or --anonymous for an account without a username")
        case (.some, true): throw ValidationError("--username and --anonymous exclude each other")
        case (let name?, false) where name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty:
            throw ValidationError("--username must not be empty: register creates an account with that username (--anonymous makes one without)")
        default: break
        }
    }

    func run() async throws {
        // The new passkey is written only once the server has verified it (see PendingCredentialStore).
        let store = PendingCredentialStore(file: try storeOptions.fileStore(command: "register", writing: true))
        // The contact's kind as the sheet would report it.
        let picked = contact.map { AccountContact(ContactKind.of($0), $0) }
        let (client, _) = try server.makeClient(store: store, accountContact: picked, accountName: name)
        let result: PasskeyRegistrationResult
        do {
            if accountCreation, let picked {
                result = try await client.createAccount(acceptedContacts: [picked.kind], requestName: name != nil)
            } else {
                result = try await client.register(username: username, displayName: displayName)
            }
        } catch {
            var explanation = server.explanation(for: error)
            if error.server?.code == .usernameTaken, let taken = username ?? contact {
                explanation = "\(shown(taken)) is already registered on \(server.server); sign in with `passkey login` instead"
            }
            throw CeremonyFailure.report(error, command: "register", json: storeOptions.json, explanation: explanation)
        }
        try await CeremonyFailure.commit(store, command: "register", json: storeOptions.json)
        if storeOptions.json {
            print(
                JSONValue.object([
                    "ok": true, "verified": .bool(result.verified), "username": .optional(result.username), "userId": .string(result.userId),
                    "credentialId": .string(result.credentialId), "isAnonymous": .bool(result.isAnonymous),
                    "store": .string(storeOptions.storeURL.path),
                ]).prettyPrinted())
        } else {
            print("✓ registered \(result.username.map(shown) ?? "an account")\(result.isAnonymous ? " (anonymous)" : "") on \(server.server)")
            print("  user id:       \(shown(result.userId))")
            print("  credential id: \(shown(result.credentialId))")
            print("  stored in:     \(storeOptions.storeURL.path)")
        }
    }
}

/// `passkey login`: signs in with a passkey from the credential file.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a passkey server with a passkey from the credential file.",
        discussion: """
            Without --username, signs in without a username (discoverable credential): the server sends no \
            allowCredentials and the most recently used passkey for its RP ID answers. Exit status: 0 signed in, \
            1 refused (no passkey, or the server rejected it), 2 usage error or unreadable credential file, \
            3 network error.
            """)

    @OptionGroup var server: ServerOptions
    @Option(name: .long, help: "Sign in to this account. Default: no username (discoverable sign-in).") var username: String?
    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let (client, transport) = try server.makeClient(store: try storeOptions.fileStore(command: "login", writing: true, onlyIfPresent: true))
        let result: PasskeyAuthenticationResult
        do {
            result = try await client.authenticate(username: username)
        } catch {
            var explanation = server.explanation(for: error)
            switch error.server?.code {
            case .credentialUnknown? where error.server?.unknownCredential != nil:
                // The server says no account holds it, and asked for it to be forgotten (WebAuthn signals).
                explanation = "the server does not know this passkey (its account was deleted there, or it was made elsewhere), so it was removed from the credential file; sign in with another passkey, or register a new one"
            case .credentialUnknown?:
                // Without a username the most recently used passkey is offered, which this one now is: say how to get past it.
                explanation = "the server does not know this passkey (it may have been deleted there, or belong to another server on the same RP ID)"
                    + (username == nil ? "; sign in with --username to use a passkey of that account" : "")
            case .passkeyDeletedOnServer?:
                explanation = "the server deleted this passkey, so it was removed from the credential file too; sign in with another passkey, or register a new one"
            case .signatureInvalid?: explanation = "the server rejected the passkey's signature: the credential file does not hold the key this passkey was registered with"
            default: break
            }
            // The server offered passkeys for the account, none of them in the file, while the file has one by that
            // name: a server answers an unknown account (or one without passkeys) with passkeys of its own making, so
            // the account or its passkeys were most likely deleted there.
            if error.code == .noCredentials, let username, explanation == nil,
                let held = try? await FileCredentialStore(fileURL: storeOptions.storeURL).allCredentials(),
                held.contains(where: { $0.userName.caseInsensitiveCompare(username) == .orderedSame })
            {
                explanation = "the credential file holds a passkey for \(username), but the server did not offer it: the account or its "
                    + "passkeys may have been deleted there, or the passkey is another server's; register again, or sign in without --username"
            }
            throw CeremonyFailure.report(error, command: "login", json: storeOptions.json, explanation: explanation)
        }
        let signCount = try? await FileCredentialStore(fileURL: storeOptions.storeURL).allCredentials().first(where: { Base64URL.encode($0.id) == result.credentialId })?.signCount
        if storeOptions.json {
            // The account as its passkeys know it (WebAuthn L3 §5.1.10), as the server answered.
            let answer = transport.answer("verify-authentication", as: VerifyAuthenticationAnswer.self)
            print(
                JSONValue.object([
                    "ok": true, "verified": .bool(result.verified), "username": .optional(result.username), "userId": .string(result.userId),
                    "credentialId": .string(result.credentialId), "isAnonymous": .bool(result.isAnonymous),
                    "signCount": signCount.map { JSONValue.number(Double($0)) } ?? .null,
                    "signedPasskeyData": .optional(result.signedPasskeyData), "rpId": .optional(answer?.rpId), "user": answer?.user?.json ?? .null,
                ]).prettyPrinted())
        } else {
            print("✓ signed in as \(result.username.map(shown) ?? "an account")\(result.isAnonymous ? " (anonymous)" : "") on \(server.server)")
            print("  user id:       \(shown(result.userId))")
            print("  credential id: \(shown(result.credentialId))")
            if let signCount { print("  sign count:    \(signCount)") }
        }
    }
}

/// `passkey credentials`: what the software authenticator holds (never the private keys).
struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "List the passkeys in the credential file (private keys are never printed).",
        discussion: "Exit status: 0 listed (also when empty), 2 unreadable or damaged credential file.")

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let store = try storeOptions.fileStore(command: "credentials", writing: false)
        let credentials: [StoredCredential]
        do { credentials = try await store.allCredentials() } catch {
            throw CeremonyFailure.report(error, command: "credentials", json: storeOptions.json)
        }
        if storeOptions.json {
            let items: [JSONValue] = credentials.map { c in
                .object([
                    "id": .string(Base64URL.encode(c.id)), "rpId": .string(c.rpID), "userName": .string(c.userName),
                    "userDisplayName": .string(c.userDisplayName), "userHandle": .string(Base64URL.encode(c.userHandle)),
                    "algorithm": .string(c.algorithm == .es256 ? "ES256" : "EdDSA"), "signCount": .number(Double(c.signCount)),
                    "backupEligible": .bool(c.backupEligible), "backupState": .bool(c.backupState), "createdAt": .string(iso8601(c.createdAt)),
                    "lastUsedAt": .optional(c.lastUsedAt.map(iso8601)), "prf": .bool(c.prfSecret != nil),
                    "largeBlob": .object(["supported": .bool(c.largeBlobSupported), "bytes": c.largeBlob.map { .number(Double($0.count)) } ?? .null]),
                ])
            }
            print(JSONValue.object(["ok": true, "store": .string(storeOptions.storeURL.path), "credentials": .array(items)]).prettyPrinted())
            return
        }
        guard !credentials.isEmpty else {
            print("no passkeys in \(storeOptions.storeURL.path)")
            return
        }
        print("\(credentials.count) passkey\(credentials.count == 1 ? "" : "s") in \(storeOptions.storeURL.path):")
        for c in credentials {
            print("- \(shown(c.userName)) (\(shown(c.userDisplayName))) @ \(shown(c.rpID))")
            print("    id \(Base64URL.encode(c.id))")
            print(
                "    \(c.algorithm == .es256 ? "ES256" : "EdDSA"), sign count \(c.signCount), created \(iso8601(c.createdAt))"
                    + (c.lastUsedAt.map { ", last used \(iso8601($0))" } ?? ", never used") + (c.prfSecret == nil ? "" : ", PRF")
                    + (c.largeBlobSupported ? ", large blob " + (c.largeBlob.map { "\($0.count) bytes" } ?? "empty") : ""))
        }
    }
}
