import Hummingbird
import PasskeyRelyingParty
import PasskeyStorage

/// Checks the API key of the backend routes (`/connect/tokens`, `/connect/verify`, `/users/…`, `/webhooks…`) once, for
/// all of them, and puts what it found on the context (``CallerRequestContext/apiKey``). It does not answer a refusal
/// itself: the handler throws it (``CallerRequestContext/backendKey()``) inside its step, so a refused call is an event
/// and a metric of that step like any other refusal.
struct APIKeyMiddleware<Repository: PasskeyRepository, Context: CallerRequestContext>: RouterMiddleware {
    let connect: ConnectService<Repository>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do throws(RelyingPartyError) {
            context.apiKey = .success(try await connect.authenticateBackend(request.headers[.authorization]))
        } catch {
            context.apiKey = .failure(error)
        }
        return try await next(request, context)
    }
}
