import Hummingbird
import PasskeyStorage

/// The dashboard's caller on the request context (``AdminRequestContext/admin``), for the routes that act as a
/// signed-in admin.
protocol AdminRequestContext: CallerRequestContext {
    /// The admin the session cookie or the break-glass token names, nil for none, or why looking it up failed (the
    /// database); nil on the dashboard's public routes.
    var admin: Result<AdminPrincipal?, APIError>? { get set }
}

extension AdminRequestContext {
    /// The signed-in admin, or nil; throws what made the lookup fail. What a route then asks of the admin (the CSRF
    /// token, a fresh passkey check) is the route's to say (``DashboardController/authorized(_:_:fresh:)``).
    func adminPrincipal() throws(APIError) -> AdminPrincipal? {
        guard let admin else { return nil }
        return try admin.get()
    }
}

extension PasskeyRequestContext: AdminRequestContext {}

/// Looks up the admin behind a dashboard request once, before its handler: the session cookie (every value of it a
/// browser sends) or the break-glass token. It refuses nothing itself: a page without an admin redirects to the sign-in
/// page and a data route answers 401, each as its handler decides.
struct AdminSessionMiddleware<Repository: PasskeyRepository, Context: AdminRequestContext>: RouterMiddleware {
    let dashboard: DashboardController<Repository, Context>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do throws(APIError) { context.admin = .success(try await dashboard.principal(request)) } catch { context.admin = .failure(error) }
        return try await next(request, context)
    }
}
