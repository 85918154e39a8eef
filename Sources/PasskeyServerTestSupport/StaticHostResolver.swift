public import PasskeyRelyingParty

/// Names resolved from a table, for tests that must not depend on DNS: `hooks.example.com` is a public address unless
/// the test says otherwise, and a name neither listed nor covered by `otherwise` does not resolve.
public struct StaticHostResolver: WebhookHostResolver {
    public var table: [String: [IPAddress]]
    /// What every other name resolves to; nil: they do not resolve.
    public var otherwise: [IPAddress]?
    /// This machine's addresses, as the test has them.
    public var local: Set<IPAddress> = []

    /// example.com's public address, for names a test treats as an ordinary receiver on the internet.
    public static let publicAddress = IPAddress.v4(93, 184, 215, 14)

    public init(_ table: [String: [IPAddress]] = [:], otherwise: [IPAddress]? = [publicAddress]) {
        self.table = table
        self.otherwise = otherwise
    }

    public func localAddresses() async -> Set<IPAddress> { local }

    public func addresses(of name: String) async throws(WebhookHostResolutionError) -> [IPAddress] {
        guard let found = table[name] ?? otherwise else { throw WebhookHostResolutionError("\(name) is not in the test's table") }
        return found
    }
}
