import Foundation
import HTTPTypes
import PasskeyRelyingParty
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyStorageSQLite
import PasskeyTestSupport
import PasskeyWire
import Testing

/// The dashboard, the backend API (and the app, with a connect token) and `passkey-server users …` change accounts
/// through one ``AccountAdministration``: the same change written three ways leaves the same audit entries and the same
/// webhook messages, and the entries differ only in who made the change.
@Suite("Account administration: one service, whichever way a change comes")
struct AccountAdministrationPathTests {
    /// An audit entry without who made it, when, or from where.
    struct Audit: Hashable, CustomStringConvertible {
        let kind: String
        let result: EventRecord.Result
        let what: String
        let userID: String?
        let username: String?
        let credentialIDPrefix: String?

        var description: String { "\(kind) \(result) \"\(what)\" \(userID ?? "-") \(username ?? "-") \(credentialIDPrefix ?? "-")" }
    }

    /// A webhook message without its id and time.
    struct Message: Hashable {
        let type: String
        let userID: String?
        let username: String?
        let displayName: String?
        let externalUserID: String?
        let credentialID: [UInt8]?
        let credentialName: String?
        let detail: String?
    }

    static let userID = "user-ann"
    static let credentialID: [UInt8] = Array(repeating: 7, count: 16)
    static var encodedCredentialID: String { Base64URL.encode(credentialID) }
    static let breakGlass = String(repeating: "b", count: 40)

    /// One account with one passkey, and a webhook endpoint that receives every type.
    static func seed<Repository: PasskeyRepository>(_ repository: Repository) async throws {
        let created = Date(timeIntervalSince1970: 1_800_000_000)
        let user = UserRecord(id: userID, userHandle: [1, 2, 3], username: "ann", displayName: "Ann", isAnonymous: false, createdAt: created)
        try await repository.register(
            CredentialRecordEntry(
                id: credentialID, userID: userID, publicKey: [1], algorithm: -7, signCount: 0, uvInitialized: true, transports: [],
                backupEligible: true, backupState: true, aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none",
                attestationType: "none", name: "Laptop", createdAt: created),
            for: user)
        try await repository.addWebhookEndpoint(
            WebhookEndpointRecord(id: "whe_all", url: "https://hooks.example.com/p", secret: "whsec_" + String(repeating: "s", count: 32), createdAt: created),
            limit: 10)
    }

    /// The `admin.*` entries, oldest first, split at " — " into what was done and who did it.
    static func audit<Repository: PasskeyRepository>(_ repository: Repository) async throws -> (entries: [Audit], actors: Set<String>) {
        let events = try await repository.events(matching: EventFilter(), before: nil, limit: 100).reversed().filter { $0.kind.hasPrefix("admin.") }
        var actors: Set<String> = []
        let entries = events.map { event in
            let parts = (event.explanation ?? "").components(separatedBy: " — ")
            actors.insert(parts.dropFirst().joined(separator: " — "))
            return Audit(
                kind: event.kind, result: event.result, what: parts.first ?? "", userID: event.userID, username: event.username,
                credentialIDPrefix: event.credentialIDPrefix)
        }
        return (entries, actors)
    }

    static func messages<Repository: PasskeyRepository>(_ repository: Repository) async throws -> [Message] {
        try await repository.webhookDeliveries(endpointID: nil, before: nil, limit: 100).map(\.message).sorted { $0.sequence < $1.sequence }.map {
            Message(
                type: $0.type, userID: $0.userID, username: $0.username, displayName: $0.displayName, externalUserID: $0.externalUserID,
                credentialID: $0.credentialID, credentialName: $0.credentialName, detail: $0.detail)
        }
    }

    /// Disable, enable, a recovery link made and revoked, the passkey renamed and deleted, the account deleted: by an
    /// admin in the dashboard (the break-glass token).
    func throughDashboard() async throws -> (entries: [Audit], actors: Set<String>, messages: [Message]) {
        let server = TestServer { $0.dashboard.adminToken = Self.breakGlass }
        try await Self.seed(server.repository)
        try await server.run { client in
            let admin: HTTPFields = [.authorization: "Bearer \(Self.breakGlass)"]
            let user = "/dashboard/api/users/\(Self.userID)"
            let steps: [(HTTPRequest.Method, String, JSONValue?)] = [
                (.patch, user, ["disabled": true]), (.patch, user, ["disabled": false]), (.post, user + "/links", ["replacePasskeys": true]),
                (.delete, user + "/links", nil), (.patch, user + "/passkeys/\(Self.encodedCredentialID)", ["name": "Work laptop"]),
                (.delete, user + "/passkeys/\(Self.encodedCredentialID)", nil), (.delete, user, nil),
            ]
            for (method, path, body) in steps {
                let answer = try await client.call(method, path, json: body, headers: admin)
                #expect(answer.status == .ok, "\(method) \(path): \(answer.json)")
            }
        }
        let (entries, actors) = try await Self.audit(server.repository)
        return (entries, actors, try await Self.messages(server.repository))
    }

    /// The same changes by the app's backend with its API key, the rename by the app for its signed-in person (a
    /// connect token).
    func throughBackend() async throws -> (entries: [Audit], actors: Set<String>, messages: [Message]) {
        let server = TestServer()
        try await Self.seed(server.repository)
        let key = try await Administration.createAPIKey(name: "billing", repository: server.repository)
        // Minted when the app asks, after the disable (which deletes the account's tokens).
        let token = BearerSecrets.make(prefix: BearerSecrets.connectTokenPrefix)
        let record = ConnectTokenRecord(
            hash: BearerSecrets.hash(token), type: ConnectTokenType.passkeyList.rawValue, userID: Self.userID, singleUse: false,
            createdAt: server.clock.now, expiresAt: server.clock.now.addingTimeInterval(600), apiKeyID: key.record.id)
        try await server.run { client in
            let backend: HTTPFields = [.authorization: "Bearer \(key.secret)"]
            let app: HTTPFields = [.authorization: "Bearer \(token)"]
            let user = "/users/\(Self.userID)"
            let steps: [(HTTPRequest.Method, String, JSONValue?, HTTPFields)] = [
                (.patch, user, ["disabled": true], backend), (.patch, user, ["disabled": false], backend),
                (.post, user + "/links", ["replacePasskeys": true], backend), (.delete, user + "/links", nil, backend),
                (.patch, "/connect/passkeys/\(Self.encodedCredentialID)", ["name": "Work laptop"], app),
                (.delete, user + "/passkeys/\(Self.encodedCredentialID)", nil, backend), (.delete, user, nil, backend),
            ]
            for (method, path, body, headers) in steps {
                if headers == app { await server.repository.saveConnectToken(record) }
                let answer = try await client.call(method, path, json: body, headers: headers)
                #expect(answer.status == .ok, "\(method) \(path): \(answer.json)")
            }
        }
        let (entries, actors) = try await Self.audit(server.repository)
        return (entries, actors, try await Self.messages(server.repository))
    }

    /// What the subcommands can change: disable, enable, a recovery link made and revoked, on a SQLite database.
    func throughCommandLine() async throws -> (entries: [Audit], actors: Set<String>, messages: [Message]) {
        let path = try temporaryFolder("passkey-administration") + "/passkey.sqlite"
        try await Self.seed(try SQLiteRepository(path: path))
        for arguments in [["disable"], ["enable"], ["link", "--replace-passkeys"], ["unlink"]] {
            let (status, output) = try await onOwnThread {
                try runProgram(ServerProcess.executable, ["users"] + arguments + [Self.userID, "--by", "id", "--database", "sqlite:" + path])
            }
            #expect(status == 0, "\(arguments): \(output)")
        }
        let repository = try SQLiteRepository(path: path)
        let (entries, actors) = try await Self.audit(repository)
        return (entries, actors, try await Self.messages(repository))
    }

    @Test("the dashboard, the backend API and the subcommands write the same audit entries and webhook messages; only who made the change differs")
    func samePaths() async throws {
        let dashboard = try await throughDashboard()
        let backend = try await throughBackend()
        let shell = try await throughCommandLine()

        let prefix = String(Self.encodedCredentialID.prefix(EventRecord.credentialIDPrefixLength))
        let expected: [Audit] = [
            Audit(kind: "admin.disable_user", result: .success, what: "user disabled", userID: Self.userID, username: "ann", credentialIDPrefix: nil),
            Audit(kind: "admin.enable_user", result: .success, what: "user enabled", userID: Self.userID, username: "ann", credentialIDPrefix: nil),
            Audit(
                kind: "admin.link_user", result: .success, what: "recovery link made (replaces the account's passkeys), valid 24 h", userID: Self.userID,
                username: "ann", credentialIDPrefix: nil),
            Audit(kind: "admin.unlink_user", result: .success, what: "1 link revoked", userID: Self.userID, username: "ann", credentialIDPrefix: nil),
            Audit(kind: "admin.rename_passkey", result: .success, what: "passkey renamed", userID: Self.userID, username: "ann", credentialIDPrefix: prefix),
            Audit(kind: "admin.delete_passkey", result: .success, what: "passkey deleted", userID: Self.userID, username: "ann", credentialIDPrefix: prefix),
            Audit(kind: "admin.delete_user", result: .success, what: "user deleted", userID: Self.userID, username: "ann", credentialIDPrefix: nil),
        ]
        #expect(dashboard.entries == expected, "\(dashboard.entries)")
        #expect(backend.entries == expected, "\(backend.entries)")
        #expect(shell.entries == Array(expected.prefix(4)), "\(shell.entries)")

        // Who: the admin, the API key by name and prefix (never its secret), the account's person in the app, the shell.
        #expect(dashboard.actors == ["by break-glass token"])
        let keyActors = backend.actors.filter { $0.hasPrefix("by API key billing (pks_") && $0.hasSuffix("…)") }
        #expect(keyActors.count == 1 && backend.actors.subtracting(keyActors) == ["by the account holder, in the app (connect token)"], "\(backend.actors)")
        #expect(shell.actors.count == 1 && shell.actors.first?.hasPrefix("from the command line (passkey-server on ") == true, "\(shell.actors)")

        let account = (userID: Self.userID, username: "ann", displayName: "Ann")
        func message(_ type: WebhookEventType, credentialName: String? = nil, detail: String? = nil) -> Message {
            Message(
                type: type.rawValue, userID: account.userID, username: account.username, displayName: account.displayName, externalUserID: nil,
                credentialID: credentialName == nil ? nil : Self.credentialID, credentialName: credentialName, detail: detail)
        }
        let messages = [
            message(.userDisabled), message(.userEnabled), message(.passkeyRenamed, credentialName: "Work laptop", detail: "Laptop"),
            message(.passkeyDeleted, credentialName: "Work laptop"), message(.userDeleted),
        ]
        #expect(dashboard.messages == messages, "\(dashboard.messages)")
        #expect(backend.messages == messages, "\(backend.messages)")
        #expect(shell.messages == Array(messages.prefix(2)), "\(shell.messages)")
    }

    /// Collects entries in memory.
    actor CollectedAudit: AuditLog {
        var entries: [EventRecord] = []
        func record(_ entry: EventRecord) { entries.append(entry) }
    }

    @Test("a refused change writes no audit entry and no webhook message: another account's passkey, a deleted account, a bad name or lifetime, a disabled account's link")
    func refusals() async throws {
        let repository = InMemoryRepository()
        try await Self.seed(repository)
        let audit = CollectedAudit()
        let accounts = AccountAdministration(repository: repository, audit: audit)
        let ann = try #require(await repository.user(id: Self.userID))
        let other = UserRecord(id: "user-bob", userHandle: [9], username: "bob", displayName: "Bob", isAnonymous: false, createdAt: ann.createdAt)
        func code(_ change: () async throws(RelyingPartyError) -> Void) async -> String? {
            do throws(RelyingPartyError) { try await change() } catch { return error.code.rawValue }
            return nil
        }
        let actor = AuditActor.admin(named: "ops")
        #expect(await code { () async throws(RelyingPartyError) in try await accounts.deletePasskey(Self.credentialID, of: other, by: actor) } == "passkey_not_found")
        #expect(await code { () async throws(RelyingPartyError) in _ = try await accounts.renamePasskey(Self.credentialID, of: other, to: "Mine", by: actor) } == "passkey_not_found")
        #expect(await code { () async throws(RelyingPartyError) in _ = try await accounts.renamePasskey(Self.credentialID, of: ann, to: "a\u{202E}b", by: actor) } == "name_invalid")
        #expect(await code { () async throws(RelyingPartyError) in _ = try await accounts.setDisabled(true, other, by: actor) } == "user_not_found")
        #expect(await code { () async throws(RelyingPartyError) in try await accounts.deleteUser(other, by: actor) } == "user_not_found")
        #expect(await code { () async throws(RelyingPartyError) in _ = try await accounts.makeLink(for: ann, replacingPasskeys: false, lifetime: 60, by: actor) } == "field_invalid")
        let disabled = try await accounts.setDisabled(true, ann, by: actor)
        #expect(await code { () async throws(RelyingPartyError) in _ = try await accounts.makeLink(for: disabled, replacingPasskeys: false, lifetime: 3600, by: actor) } == "account_disabled")
        // Only the disable was made: one entry, one message.
        #expect(await audit.entries.map(\.kind) == ["admin.disable_user"])
        #expect(try await Self.messages(repository).map(\.type) == ["user.disabled"])
        #expect(await repository.credentials(userID: Self.userID).map(\.name) == ["Laptop"])
    }
}
