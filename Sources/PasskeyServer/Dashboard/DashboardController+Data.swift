import PasskeyRelyingParty
import Foundation
import HTTPTypes
import Hummingbird
import PasskeyAPI
import Logging
import NIOCore
import PasskeyStorage
import PasskeyWire

/// The dashboard's data endpoints (`/dashboard/api/…`): events, totals, users and their passkeys and links. Each goes
/// through ``DashboardController/data(_:fresh:_:)``: a session, its CSRF token, and a fresh passkey check for what
/// decides who gets into an account.
extension DashboardController {
    func addDataRoutes(to router: some RouterMethods<Context>) {
        router.get("dashboard/api/events", use: listEvents)
        router.get("dashboard/events/stream", use: eventStream)
        router.get("dashboard/api/stats", use: stats)
        router.get("dashboard/api/users", use: listUsers)
        router.get("dashboard/api/users/:id", use: showUser)
        router.patch("dashboard/api/users/:id/passkeys/:credentialId", use: renameUserPasskey)
        router.delete("dashboard/api/users/:id/passkeys/:credentialId", use: deleteUserPasskey)
        // A fresh check both ways (the page asks for it when the session's is older than 5 minutes): enabling lets an
        // account sign in again (after a suspected takeover, say), and a stolen session should not switch accounts off.
        router.patch("dashboard/api/users/:id", use: setUserState)
        // A recovery or onboarding link for the account (docs/connect.md): its holder can add a passkey, so a fresh
        // check first, as for the other changes that decide who gets into an account.
        router.post("dashboard/api/users/:id/links", use: makeUserLink)
        router.delete("dashboard/api/users/:id/links", use: revokeUserLinks)
        router.delete("dashboard/api/users/:id", use: deleteUser)
    }

    func passkey(_ context: Context) async throws(APIError) -> (UserRecord, CredentialRecordEntry) {
        let (user, passkeys) = try await findUser(context.parameters.get("id"))
        guard let encoded = context.parameters.get("credentialId"), let id = Base64URL.decode(encoded),
            let credential = passkeys.first(where: { $0.id == id })
        else { throw DashboardErrors.passkeyNotFound }
        return (user, credential)
    }

    /// `GET /dashboard/api/events`.
    func listEvents(_ request: Request, context: Context) async -> Response {
        await data(request, context) { _ throws(APIError) in
            let before = request.formQuery["before"].flatMap(Int64.init)
            let limit = max(1, min(request.formQuery["limit"].flatMap(Int.init) ?? 100, 500))
            let found: [EventRecord]
            do throws(StorageError) { found = try await repository.events(matching: Self.filter(request), before: before, limit: limit) } catch { throw APIError(error) }
            return EventListAnswer(events: found.map(DashboardJSON.event), next: found.count == limit ? found.last.map { Int($0.id) } : nil)
        }
    }

    /// `GET /dashboard/events/stream`.
    func eventStream(_ request: Request, context: Context) async -> Response {
        let admin: AdminPrincipal?
        do throws(APIError) { admin = try context.adminPrincipal() } catch { return Response.error(error) }
        guard let admin else { return Response.error(DashboardErrors.unauthorized) }
        return await stream(request, principal: admin)
    }

    /// `GET /dashboard/api/stats`.
    func stats(_ request: Request, context: Context) async -> Response {
        await data(request, context) { _ throws(APIError) in
            let totals: StorageTotals
            do throws(StorageError) { totals = try await repository.totals() } catch { throw APIError(error) }
            return StatsAnswer(
                users: totals.users, anonymousUsers: totals.anonymousUsers, passkeys: totals.passkeys, admins: totals.admins,
                hours: DashboardJSON.hours(try await hours()))
        }
    }

    /// `GET /dashboard/api/users`.
    func listUsers(_ request: Request, context: Context) async -> Response {
        await data(request, context) { _ throws(APIError) in
            let number = Self.pageNumber(request)
            let (users, hasMore) = try await usersPage(search: request.formQuery["search"], page: number)
            return UserListAnswer(users: users.map { DashboardJSON.user($0.0, passkeys: $0.1) }, page: number, hasMore: hasMore)
        }
    }

    /// `GET /dashboard/api/users/{id}`.
    func showUser(_ request: Request, context: Context) async -> Response {
        await data(request, context) { _ throws(APIError) in
            let (user, passkeys) = try await findUser(context.parameters.get("id"))
            return UserDetailAnswer(
                user: DashboardJSON.user(user, passkeys: passkeys.count), passkeys: passkeys.map { [catalog = catalog.current] in DashboardJSON.passkey($0, catalog: catalog) })
        }
    }

    /// `PATCH /dashboard/api/users/{id}/passkeys/{credentialId}`.
    func renameUserPasskey(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context) { principal throws(APIError) in
            let (user, credential) = try await passkey(context)
            let body = try await request.decode(PasskeyRenameRequest.self, limit: bodyLimit)
            let renamed = try await answering { () async throws(RelyingPartyError) in
                try await accounts.renamePasskey(credential.id, of: user, to: body.name, by: actor(principal, request, context))
            }
            return PasskeyRenamedAnswer(name: renamed.name ?? "")
        }
    }

    /// `DELETE /dashboard/api/users/{id}/passkeys/{credentialId}`.
    func deleteUserPasskey(_ request: Request, context: Context) async -> Response {
        await data(request, context, fresh: true) { principal throws(APIError) in
            let (user, credential) = try await passkey(context)
            try await answering { () async throws(RelyingPartyError) in
                try await accounts.deletePasskey(credential.id, of: user, by: actor(principal, request, context))
            }
            return DeletedAnswer()
        }
    }

    /// `PATCH /dashboard/api/users/{id}`.
    func setUserState(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context, fresh: true) { principal throws(APIError) in
            let (user, passkeys) = try await findUser(context.parameters.get("id"))
            let disabled = try await request.decode(AccountStateRequest.self, limit: bodyLimit).disabled
            let updated = try await answering { () async throws(RelyingPartyError) in
                try await accounts.setDisabled(disabled, user, by: actor(principal, request, context))
            }
            return DashboardJSON.user(updated, passkeys: passkeys.count)
        }
    }

    /// `POST /dashboard/api/users/{id}/links`.
    func makeUserLink(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context, fresh: true) { principal throws(APIError) in
            let (user, _) = try await findUser(context.parameters.get("id"))
            let replacing = try await request.decode(AccountLinkRequest.self, limit: bodyLimit).replacePasskeys ?? false
            let link = try await answering { () async throws(RelyingPartyError) in
                try await accounts.makeLink(
                    for: user, replacingPasskeys: replacing, lifetime: configuration.connect.accountLinkLifetime, by: actor(principal, request, context))
            }
            return AccountLinkAnswer(link, base: configuration.linkBase)
        }
    }

    /// `DELETE /dashboard/api/users/{id}/links`.
    func revokeUserLinks(_ request: Request, context: Context) async -> Response {
        await data(request, context, fresh: true) { principal throws(APIError) in
            let (user, _) = try await findUser(context.parameters.get("id"))
            let count = try await answering { () async throws(RelyingPartyError) in
                try await accounts.revokeLinks(of: user, by: actor(principal, request, context))
            }
            return AccountLinksRevokedAnswer(revoked: count)
        }
    }

    /// `DELETE /dashboard/api/users/{id}`.
    func deleteUser(_ request: Request, context: Context) async -> Response {
        await data(request, context, fresh: true) { principal throws(APIError) in
            let (user, _) = try await findUser(context.parameters.get("id"))
            try await answering { () async throws(RelyingPartyError) in try await accounts.deleteUser(user, by: actor(principal, request, context)) }
            return DeletedAnswer()
        }
    }
}
