public import Hummingbird
public import NIOCore
public import PasskeyRelyingParty
public import PasskeyStorage

/// What the server's middleware learn about a request's caller, on the request context for its handler (as
/// Hummingbird's authenticators put an identity there).
public protocol CallerRequestContext: RequestContext {
    /// The app's backend, by the API key in `Authorization: Bearer pks_…`, as ``APIKeyMiddleware`` found it: the key, or
    /// why it was refused. Nil on routes that take no API key.
    var apiKey: Result<APIKeyRecord, RelyingPartyError>? { get set }
}

extension CallerRequestContext {
    /// The backend's API key; throws the refusal (`api_key_missing`, `api_key_invalid`, `api_key_revoked`). The check
    /// ran before the handler; the handler throws its refusal inside its own step, so a refused call is recorded and
    /// counted as that step's, as any other refusal is.
    func backendKey() throws(RelyingPartyError) -> APIKeyRecord {
        guard let apiKey else { throw RelyingPartyError(.apiKeyMissing, "Send the backend's API key as Authorization: Bearer <key>.") }
        return try apiKey.get()
    }
}

/// The request context of every route: Hummingbird's core storage, the peer address (for rate limiting) and the caller
/// the middleware found.
public struct PasskeyRequestContext: CallerRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var apiKey: Result<APIKeyRecord, RelyingPartyError>?
    /// The dashboard's admin (``AdminSessionMiddleware``).
    var admin: Result<AdminPrincipal?, APIError>?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
