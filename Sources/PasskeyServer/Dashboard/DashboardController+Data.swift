import PasskeyRelyingParty
import Foundation
import HTTPTypes
import Hummingbird
import PasskeyAPI
import Logging
import NIOCore
import PasskeyAuthenticatorNames
import PasskeyStorage
import PasskeyWire

/// The dashboard's data endpoints (`/dashboard/api/…`): events, totals, users and their passkeys and links. Each goes
/// through ``DashboardController/data(_:fresh:_:)``: a session, its CSRF token, and a fresh passkey check for what
/// decides who gets into an account.
extension DashboardController {
    func addDataRoutes(to router: Router<Context>) {
        router.get("dashboard/api/events") { request, _ in
            await data(request) { _ throws(APIError) in
                let before = request.formQuery["before"].flatMap(Int64.init)
                let limit = max(1, min(request.formQuery["limit"].flatMap(Int.init) ?? 100, 500))
                let found: [EventRecord]
                do throws(StorageError) { found = try await repository.events(matching: Self.filter(request), before: before, limit: limit) } catch { throw APIError(error) }
                return EventListAnswer(events: found.map(DashboardJSON.event), next: found.count == limit ? found.last.map { Int($0.id) } : nil)
            }
        }
        router.get("dashboard/events/stream") { request, _ in
            let admin: AdminPrincipal?
            do throws(APIError) { admin = try await principal(request) } catch { return Response.error(error) }
            guard let admin else { return Response.error(DashboardErrors.unauthorized) }
            return await stream(request, principal: admin)
        }
        router.get("dashboard/api/stats") { request, _ in
            await data(request) { _ throws(APIError) in
                let totals: StorageTotals
                do throws(StorageError) { totals = try await repository.totals() } catch { throw APIError(error) }
                return StatsAnswer(
                    users: totals.users, anonymousUsers: totals.anonymousUsers, passkeys: totals.passkeys, admins: totals.admins,
                    hours: DashboardJSON.hours(try await hours()))
            }
        }
        router.get("dashboard/api/users") { request, _ in
            await data(request) { _ throws(APIError) in
                let number = Self.pageNumber(request)
                let (users, hasMore) = try await usersPage(search: request.formQuery["search"], page: number)
                return UserListAnswer(users: users.map { DashboardJSON.user($0.0, passkeys: $0.1) }, page: number, hasMore: hasMore)
            }
        }
        router.get("dashboard/api/users/:id") { request, context in
            await data(request) { _ throws(APIError) in
                let (user, passkeys) = try await findUser(context.parameters.get("id"))
                return UserDetailAnswer(
                    user: DashboardJSON.user(user, passkeys: passkeys.count), passkeys: passkeys.map { DashboardJSON.passkey($0, names: names) })
            }
        }
        router.patch("dashboard/api/users/:id/passkeys/:credentialId") { request, context in
            var request = request
            return await data(request) { principal throws(APIError) in
                let (user, credential) = try await passkey(context)
                let body = try await request.decode(PasskeyRenameRequest.self, limit: bodyLimit)
                let name = try answering { () throws(RelyingPartyError) in try PasskeyName.validated(body.name) }
                do throws(StorageError) { try await repository.renameCredential(id: credential.id, userID: user.id, name: name) } catch { throw APIError(error) }
                await recordAdmin("rename_passkey", request, context, principal: principal, user: user, credentialID: credential.id, detail: "renamed")
                return PasskeyRenamedAnswer(name: name)
            }
        }
        router.delete("dashboard/api/users/:id/passkeys/:credentialId") { request, context in
            await data(request, fresh: true) { principal throws(APIError) in
                let (user, credential) = try await passkey(context)
                do throws(StorageError) { try await repository.deleteCredential(id: credential.id, userID: user.id) } catch { throw APIError(error) }
                await recordAdmin("delete_passkey", request, context, principal: principal, user: user, credentialID: credential.id, detail: "passkey deleted")
                return DeletedAnswer()
            }
        }
        // A fresh check both ways (the page asks for it when the session's is older than 5 minutes): enabling lets an
        // account sign in again (after a suspected takeover, say), and a stolen session should not switch accounts off.
        router.patch("dashboard/api/users/:id") { request, context in
            var request = request
            return await data(request, fresh: true) { principal throws(APIError) in
                let (user, passkeys) = try await findUser(context.parameters.get("id"))
                let disabled = try await request.decode(AccountStateRequest.self, limit: bodyLimit).disabled
                let updated: UserRecord
                do throws(StorageError) {
                    updated = try await repository.setUserDisabled(id: user.id, disabledAt: disabled ? now() : nil)
                } catch { throw error.code == .notFound ? DashboardErrors.userNotFound : APIError(error) }
                await recordAdmin(
                    disabled ? "disable_user" : "enable_user", request, context, principal: principal, user: user,
                    detail: disabled ? "user disabled" : "user enabled")
                return DashboardJSON.user(updated, passkeys: passkeys.count)
            }
        }
        // A recovery or onboarding link for the account (docs/connect.md): its holder can add a passkey, so a fresh
        // check first, as for the other changes that decide who gets into an account.
        router.post("dashboard/api/users/:id/links") { request, context in
            var request = request
            return await data(request, fresh: true) { principal throws(APIError) in
                let (user, _) = try await findUser(context.parameters.get("id"))
                let replacing = try await request.decode(AccountLinkRequest.self, limit: bodyLimit).replacePasskeys ?? false
                let made: (link: AccountLink, record: ConnectTokenRecord)
                do throws(RelyingPartyError) {
                    made = try AccountLink.make(
                        for: user, replacingPasskeys: replacing, lifetime: configuration.connect.accountLinkLifetime, now: now(), random: .system)
                } catch { throw APIError(error) }
                do throws(StorageError) { try await repository.saveConnectToken(made.record) } catch { throw APIError(error) }
                await recordAdmin(
                    "link_user", request, context, principal: principal, user: user,
                    detail: replacing ? "recovery link made (replaces the account's passkeys)" : "link made")
                return AccountLinkController<Repository, Context>.answer(made.link, base: configuration.linkBase)
            }
        }
        router.delete("dashboard/api/users/:id/links") { request, context in
            await data(request, fresh: true) { principal throws(APIError) in
                let (user, _) = try await findUser(context.parameters.get("id"))
                let count: Int
                do throws(StorageError) {
                    count = try await repository.deleteConnectTokens(userID: user.id, types: ConnectTokenType.accountLinks.map(\.rawValue))
                } catch { throw APIError(error) }
                await recordAdmin("unlink_user", request, context, principal: principal, user: user, detail: "\(count) link\(count == 1 ? "" : "s") revoked")
                return AccountLinksRevokedAnswer(revoked: count)
            }
        }
        router.delete("dashboard/api/users/:id") { request, context in
            await data(request, fresh: true) { principal throws(APIError) in
                let (user, _) = try await findUser(context.parameters.get("id"))
                do throws(StorageError) { try await repository.deleteUser(id: user.id) } catch { throw APIError(error) }
                await recordAdmin("delete_user", request, context, principal: principal, user: user, detail: "user deleted")
                return DeletedAnswer()
            }
        }
    }

    func passkey(_ context: Context) async throws(APIError) -> (UserRecord, CredentialRecordEntry) {
        let (user, passkeys) = try await findUser(context.parameters.get("id"))
        guard let encoded = context.parameters.get("credentialId"), let id = Base64URL.decode(encoded),
            let credential = passkeys.first(where: { $0.id == id })
        else { throw DashboardErrors.passkeyNotFound }
        return (user, credential)
    }
}
