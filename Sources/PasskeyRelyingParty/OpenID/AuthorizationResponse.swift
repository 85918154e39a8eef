import Foundation

/// Where the browser goes with the outcome of an authorization request: the redirect URI and its parameters
/// (`code` or `error`, `state`, `iss`), in the query or posted.
public struct AuthorizationResponse: Sendable, Hashable {
    public var redirectURI: String
    public var mode: ResponseMode
    public var parameters: [(String, String)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.redirectURI == rhs.redirectURI && lhs.mode == rhs.mode && lhs.parameters.elementsEqual(rhs.parameters, by: { $0 == $1 })
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(redirectURI)
        for (name, value) in parameters { hasher.combine(name); hasher.combine(value) }
    }

    /// The redirect URI with the parameters added to its query (RFC 6749 §4.1.2).
    public var location: String {
        var components = URLComponents(string: redirectURI) ?? URLComponents()
        var items = components.queryItems ?? []
        items += parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.queryItems = items
        // URLComponents leaves `+` as it is; in a query it would read as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? redirectURI
    }
}
