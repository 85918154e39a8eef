/// Turns a receiver's host name into the addresses a delivery may connect to, so that ``WebhookReceiverPolicy`` is
/// checked on the very addresses used (the transport connects to one of them, never resolving the name again).
public protocol WebhookHostResolver: Sendable {
    /// The name's addresses now, in the order to try them.
    /// - Throws: why there are none (the name does not exist, no answer): for the server's log, never the caller's.
    func addresses(of name: String) async throws(WebhookHostResolutionError) -> [IPAddress]
    /// This machine's addresses now, never a receiver's (beside ``WebhookReceiverPolicy/ownAddresses``): asked at every
    /// check, since a machine gains addresses while it runs (a floating IP, IPv6 temporary addresses).
    func localAddresses() async -> Set<IPAddress>
}

extension WebhookHostResolver {
    public func localAddresses() async -> Set<IPAddress> { [] }
}

public struct WebhookHostResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
