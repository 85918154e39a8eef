import PasskeyAPI
import Foundation
import PasskeyWire

/// Passkey management for a signed-in user: the list, adding one from it, renaming and deleting, each with one token
/// from the app's provider; and the same calls for a token the app already holds.
extension PasskeyConnect {
    // MARK: Manage

    /// The user's passkeys, and whether adding one here is offered: asks the provider once, for a passkey-list token,
    /// which both the list and the append decision take.
    public func isManageAppendAllowed(connectTokenProvider: ConnectTokenProvider) async -> ManageStatus {
        do throws(PasskeyError) {
            let token = try await Self.token(connectTokenProvider, .passkeyList)
            let answer = try await asked(.passkeyList) { () throws(PasskeyError) in
                try await self.call(.get, "connect/passkeys", token: token, stage: .options)
            }
            let passkeys = try await listed(try Self.list(answer))
            return try await manageStatus(passkeys, decisionToken: token)
        } catch {
            return .error(error)
        }
    }

    /// Adds a passkey from the management screen: asks the provider once, for a passkey-append token; the append's
    /// answer carries the list after it and whether to offer another, so no second token is needed.
    public func completePasskeyListAppend(connectTokenProvider: ConnectTokenProvider) async -> ManageStatus {
        // A fresh token from the app's backend, for the user signed in now: a token kept from an earlier decision could
        // belong to someone who has signed out since.
        pendingAppend = nil
        do throws(PasskeyError) {
            let token = try await Self.token(connectTokenProvider, .passkeyAppend)
            let verified = try await asked(.passkeyAppend) { () throws(PasskeyError) in
                try await self.appendVerified(token: token, style: .modal, replacing: nil, client: await self.clientReport())
            }
            // A server before lists in this answer sends none: the list comes with a list token then.
            guard let list = verified.list else { return try await relisted(connectTokenProvider) }
            return try await manageStatus(try await listed(list), decision: list.append)
        } catch {
            switch error.code {
            case .cancelled: return .cancelled
            case .excludedCredentialExists: return .excludeCredentialsMatch
            default: return .error(error)
            }
        }
    }

    /// Renames a passkey: asks the provider once, for a passkey-list token, which the rename, the list and the append
    /// decision all take.
    public func renamePasskey(id: String, name: String, connectTokenProvider: ConnectTokenProvider) async -> ManageStatus {
        do throws(PasskeyError) {
            let token = try await Self.token(connectTokenProvider, .passkeyList)
            let answer = try await asked(.passkeyList) { () throws(PasskeyError) in
                _ = try await self.renamePasskey(id: id, name: name, connectToken: token)
                return try await self.call(.get, "connect/passkeys", token: token, stage: .options)
            }
            return try await manageStatus(try await listed(try Self.list(answer)), decisionToken: token)
        } catch {
            return .error(error)
        }
    }

    /// Deletes a passkey: asks the provider once, for a passkey-delete token; the delete's answer carries the passkeys
    /// left and whether to offer adding one. Deleting the one-tap passkey forgets it.
    public func deletePasskey(id: String, connectTokenProvider: ConnectTokenProvider) async -> ManageStatus {
        do throws(PasskeyError) {
            let token = try await Self.token(connectTokenProvider, .passkeyDelete)
            let answer = try await asked(.passkeyDelete) { () throws(PasskeyError) in
                try await self.deleted(id: id, connectToken: token, client: await self.clientReport())
            }
            // A server before lists in this answer sends none: the list comes with a list token then.
            guard let list = answer else { return try await relisted(connectTokenProvider) }
            return try await manageStatus(try await listed(list), decision: list.append)
        } catch {
            return .error(error)
        }
    }

    /// The list and the decision with a list token: after a change whose answer does not carry them (a server before
    /// they were there).
    func relisted(_ provider: ConnectTokenProvider) async throws(PasskeyError) -> ManageStatus {
        let token = try await Self.token(provider, .passkeyList)
        let passkeys = try await asked(.passkeyList) { () throws(PasskeyError) in try await self.listPasskeys(connectToken: token) }
        return try await manageStatus(passkeys, decisionToken: token)
    }

    /// A passkey list answer (``PasskeyAPI/PasskeyListAnswer``). Another server on the address (or a proxy's page) must
    /// not read as an account without passkeys.
    static func list(_ answer: JSONObject) throws(PasskeyError) -> PasskeyListAnswer {
        do { return try PasskeyListAnswer(json: .object(answer)) } catch {
            let missing = error.code == .fieldMissing && error.field == "passkeys"
            throw PasskeyError(
                .invalidResponse, stage: .options, missing ? "the answer has no passkeys member" : "the answer lists an entry that is not a passkey: \(error)")
        }
    }

    /// The passkeys of a list, with the device's passkey manager told what it says.
    func listed(_ list: PasskeyListAnswer) async throws(PasskeyError) -> [PasskeyInfo] {
        let passkeys = list.passkeys.map(PasskeyInfo.init)
        await SignalledAccount(rpId: list.rpId, user: list.user)?.signalListed(passkeys.map(\.id), to: authenticator)
        return passkeys
    }

    /// The list with the server's append decision: asked with `decisionToken` (a list token takes it), or the one an
    /// answer carried. A decision the server could not make (it was not asked, a network failure) hides the button; a
    /// token of the wrong kind is the app's mistake and an error, never a silent "not allowed".
    func manageStatus(_ passkeys: [PasskeyInfo], decisionToken: String? = nil, decision given: ConnectDecision? = nil) async throws(PasskeyError)
        -> ManageStatus
    {
        var decision = given
        if let decisionToken {
            let body = AppendDecisionRequest(client: await clientReport(), lastDeclinedAt: Self.declined(await store.load()))
            // The token listed already, so a refusal here is not the app's: a server before the decision took list tokens
            // (connect_token_wrong_type), a network failure. The button is hidden then.
            do {
                decision = try await call(
                    .post, "connect/append/decision", body: body.json, token: decisionToken, stage: .options, as: AppendDecisionAnswer.self
                ).decision
            } catch where error.code == .cancelled {
                throw error
            } catch {
                decision = nil
            }
        }
        let step = decision?.step
        return step == "ask" || step == "auto" ? .allowed(passkeys) : .notAllowed(passkeys)
    }

    // MARK: Management, low level (a token the app already holds; these throw)

    /// The account's passkeys, with a passkey-list token.
    public func listPasskeys(connectToken: String) async throws(PasskeyError) -> [PasskeyInfo] {
        try await listed(try Self.list(try await call(.get, "connect/passkeys", token: connectToken, stage: .options)))
    }

    /// Renames a passkey with a passkey-list token; returns it as stored.
    public func renamePasskey(id: String, name: String, connectToken: String) async throws(PasskeyError) -> PasskeyInfo {
        let answer = try await call(
            .patch, "connect/passkeys/\(Self.pathSegment(id))", body: PasskeyRenameRequest(name: name).json, token: connectToken,
            stage: .verification)
        guard let entry = try? PasskeyEntry(json: .object(answer)) else {
            throw PasskeyError(.invalidResponse, stage: .verification, "the rename answer is not a passkey")
        }
        return PasskeyInfo(entry)
    }

    /// Deletes a passkey with a passkey-delete token. Deleting the one-tap passkey forgets it.
    public func deletePasskey(id: String, connectToken: String) async throws(PasskeyError) {
        _ = try await deleted(id: id, connectToken: connectToken, client: nil)
    }

    /// Deletes a passkey; the answer lists the passkeys left (and, with `client`, the append decision), unless the server
    /// is from before lists were in this answer. The device goes in the query: a DELETE's body may not survive every
    /// proxy.
    func deleted(id: String, connectToken: String, client: ClientReportJSON?) async throws(PasskeyError) -> PasskeyListAnswer? {
        var query: [RelyingPartyRequest.QueryItem] = []
        if let client {
            for case let (name, value?) in [("platform", client.platform), ("osVersion", client.osVersion)] {
                query.append(.init(name: name, value: value))
            }
            for case let (name, flag?) in [
                ("platformAuthenticator", client.platformAuthenticator), ("conditionalMediation", client.conditionalMediation),
                ("conditionalCreate", client.conditionalCreate),
            ] {
                query.append(.init(name: name, value: flag ? "true" : "false"))
            }
            if let declined = Self.declined(await store.load()) { query.append(.init(name: "lastDeclinedAt", value: declined)) }
        }
        let answer = try await call(.delete, "connect/passkeys/\(Self.pathSegment(id))", query: query, token: connectToken, stage: .verification)
        guard (try? DeletedAnswer(json: .object(answer)))?.deleted == true else {
            throw PasskeyError(.invalidResponse, stage: .verification, "the delete answer does not say the passkey was deleted")
        }
        // If this device holds the passkey, it forgets it too (WebAuthn L3 §5.1.10); another device's passkey is not here.
        if let raw = Base64URL.decode(id) { await authenticator.signalUnknownCredential(rpID: nil, credentialID: raw) }
        await store.update { state in
            if state.lastCredentialID == id {
                state.lastCredentialID = nil
                state.lastIdentifier = nil
            }
        }
        return answer["passkeys"] == nil ? nil : try Self.list(answer)
    }
}
