import Foundation
import HTTPTypes
import Hummingbird
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The dashboard's pages: each needs a session (``DashboardController/page(_:_:)`` redirects to the sign-in page
/// otherwise) and renders from ``DashboardPages``.
extension DashboardController {
    func addPageRoutes(to router: some RouterMethods<Context>) {
        router.get("dashboard", use: overviewPage)
        router.get("dashboard/log", use: logPage)
        router.get("dashboard/users", use: usersListPage)
        router.get("dashboard/users/:id", use: userPage)
        router.get("dashboard/settings", use: settingsPage)
        router.get("dashboard/flagged", use: flaggedPage)
    }

    /// `GET /dashboard`.
    func overviewPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in
            let totals: StorageTotals
            do throws(StorageError) { totals = try await repository.totals() } catch { throw APIError(error) }
            return DashboardPages.overview(
                principal: principal, totals: totals, hours: try await hours(), compromisedModels: catalog.current.compromisedModels.count)
        }
    }

    /// `GET /dashboard/flagged`: one pass over the stored passkeys, on an admin's demand only.
    func flaggedPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in
            let catalog = catalog.current
            let found: [(passkey: CredentialRecordEntry, owner: UserRecord?)]
            do { found = try await PasskeysOfModels.find(catalog.compromisedModels, in: repository) } catch {
                throw APIError(StorageError(.unavailable, "reading the passkeys of reported models: \(error)"))
            }
            return DashboardPages.flagged(principal: principal, passkeys: found, catalog: catalog)
        }
    }

    /// `GET /dashboard/log`.
    func logPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in DashboardPages.log(principal: principal, filter: Self.filter(request)) }
    }

    /// `GET /dashboard/users`.
    func usersListPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in
            let search = request.formQuery["search"]
            let number = Self.pageNumber(request)
            let (users, hasMore) = try await usersPage(search: search, page: number)
            return DashboardPages.users(principal: principal, search: search, page: number, users: users, hasMore: hasMore)
        }
    }

    /// `GET /dashboard/users/{id}`.
    func userPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in
            let (user, passkeys) = try await findUser(context.parameters.get("id"))
            return DashboardPages.user(principal: principal, user: user, passkeys: passkeys, catalog: catalog.current, linkLifetime: configuration.connect.accountLinkLifetime)
        }
    }

    /// `GET /dashboard/settings`.
    func settingsPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in DashboardPages.settings(principal: principal, configuration: configuration) }
    }
}
