/// Where webhook receivers may be: by default only on the public internet, so that whoever may add an endpoint (a
/// backend's API key, a dashboard admin) cannot make the server POST to what only it can reach (loopback services, a
/// database's HTTP port, a cloud's metadata service at 169.254.169.254) nor map that network from the delivery log.
///
/// It is checked when an endpoint is saved (its host, and every address its name resolves to then) and again at every
/// delivery, on the addresses the transport will connect to, so a name that resolves elsewhere later (DNS rebinding)
/// gains nothing. An operator names what is beside the server and may receive all the same: networks
/// (`--webhook-allow-network 10.1.0.0/16`) and host names (`--webhook-allow-host hooks.internal`), and only those may
/// be reached over plain `http://`.
public struct WebhookReceiverPolicy: Sendable, Hashable {
    /// Networks receivers may be on although they are not public.
    public var allowedNetworks: [IPNetwork]
    /// Host names (lower case) whose addresses are taken as they resolve, whatever they are: the operator vouches for them.
    public var allowedHosts: Set<String>
    /// This machine's own addresses, refused like loopback even when public: the server would POST to itself. Those
    /// the resolver finds at each check (``WebhookHostResolver/localAddresses()``) count too.
    public var ownAddresses: Set<IPAddress>
    /// How many endpoints there may be at most.
    public var maximumEndpoints: Int

    public static var defaultMaximumEndpoints: Int { 20 }

    public init(
        allowedNetworks: [IPNetwork] = [], allowedHosts: Set<String> = [], ownAddresses: Set<IPAddress> = [],
        maximumEndpoints: Int = defaultMaximumEndpoints
    ) {
        self.allowedNetworks = allowedNetworks
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.ownAddresses = ownAddresses
        self.maximumEndpoints = maximumEndpoints
    }

    /// Whether the operator named this host (a name, or an address in an allowed network).
    public func isAllowedBeside(_ host: WebhookURL.Host) -> Bool {
        switch host {
        case .name(let name): allowedHosts.contains(name)
        case .address(let address): allowedHosts.contains(address.description) || isInAllowedNetwork(address)
        }
    }

    /// Whether an allowed network opens the address: it holds the address (an IPv4 one also in its IPv4-mapped, NAT64
    /// and 6to4 forms), and the address is not one of this machine's own but loopback.
    func isInAllowedNetwork(_ address: IPAddress) -> Bool {
        let effective = address.embeddedIPv4 ?? address
        guard allowedNetworks.contains(where: { $0.contains(address) || $0.contains(effective) }) else { return false }
        let own = ownAddresses.contains(address) || ownAddresses.contains(effective)
        return !own || Self.specialUse(effective) == "a loopback address"
    }

    /// Why the URL may not be a receiver before anything is resolved (its scheme, a literal address, a name that is
    /// never public); nil when it may be, as far as that tells.
    public func refusal(of url: WebhookURL) -> String? {
        let beside = isAllowedBeside(url.host)
        if url.scheme == "http", !beside {
            return "http:// is only for receivers the operator allowed beside the server (--webhook-allow-host, --webhook-allow-network); use https://."
        }
        switch url.host {
        case .address(let address):
            return beside ? nil : refusal(of: address).map { "\(address) is \($0), not a public one." }
        case .name(let name):
            guard !beside else { return nil }
            return Self.specialUseName(name).map { "\(name) is \($0), not a public host name." }
        }
    }

    /// Why a receiver at `address`, reached through `host`, is refused; nil when it may be reached. The kind of address
    /// with its article (`a loopback address`), for the sentence it goes in.
    ///
    /// A host the operator named is taken whatever it resolves to. An allowed network opens its addresses (an IPv4 one
    /// also in its IPv4-mapped, NAT64 and 6to4 forms) but not this machine's own: a receiver on the server's machine is
    /// named (`--webhook-allow-host localhost`), or reached through an allowed loopback network, so that allowing the
    /// office network does not open every port of the server itself.
    public func refusal(of address: IPAddress, through host: WebhookURL.Host) -> String? {
        isAllowedBeside(host) || isInAllowedNetwork(address) ? nil : refusal(of: address)
    }

    /// The kind of a special-purpose address (`a private address`), nil for a public one. IANA's special-purpose address
    /// registries (RFC 6890 and later), plus this machine's own addresses.
    func refusal(of address: IPAddress) -> String? {
        if let v4 = address.embeddedIPv4 {
            return Self.specialUse(v4).map { "\($0) inside an IPv6 one" } ?? (ownAddresses.contains(v4) ? "an address of this machine" : nil)
        }
        return Self.specialUse(address) ?? (ownAddresses.contains(address) ? "an address of this machine" : nil)
    }

    static func specialUse(_ address: IPAddress) -> String? {
        let table = address.isIPv4 ? ipv4Blocks : ipv6Blocks
        if let found = table.first(where: { $0.network.contains(address) }) { return found.kind }
        // IPv6: only global unicast (2000::/3) is public at all.
        if !address.isIPv4, address.bytes[0] & 0xE0 != 0x20 { return "a reserved address" }
        return nil
    }

    /// Special-use names (RFC 6761, RFC 8375, ICANN's `.internal`), and names of one label, which a resolver completes
    /// with the machine's search domains.
    static func specialUseName(_ name: String) -> String? {
        let labels = name.split(separator: ".")
        guard labels.count > 1 else { return "a name of one label, which resolves inside the server's own network" }
        switch labels.last {
        case "localhost": return "a loopback name"
        case "local": return "a multicast DNS name of the local network"
        case "internal", "intranet", "lan", "corp", "home", "private": return "a private network's name"
        case "arpa": return name.hasSuffix(".home.arpa") ? "a home network's name" : "a reverse-lookup name"
        case "test", "invalid", "example", "onion": return "a special-use name that does not resolve on the internet"
        default: return nil
        }
    }

    static let ipv4Blocks: [(network: IPNetwork, kind: String)] = [
        (.v4(0, 0, 0, 0) / 8, "an unspecified address (this network)"),
        (.v4(10, 0, 0, 0) / 8, "a private address"),
        (.v4(100, 64, 0, 0) / 10, "a carrier-grade NAT address"),
        (.v4(127, 0, 0, 0) / 8, "a loopback address"),
        (.v4(169, 254, 0, 0) / 16, "a link-local address"),
        (.v4(172, 16, 0, 0) / 12, "a private address"),
        (.v4(192, 0, 0, 0) / 24, "an IETF protocol address"),
        (.v4(192, 0, 2, 0) / 24, "a documentation address"),
        (.v4(192, 88, 99, 0) / 24, "a 6to4 relay address"),
        (.v4(192, 168, 0, 0) / 16, "a private address"),
        (.v4(198, 18, 0, 0) / 15, "a benchmarking address"),
        (.v4(198, 51, 100, 0) / 24, "a documentation address"),
        (.v4(203, 0, 113, 0) / 24, "a documentation address"),
        (.v4(224, 0, 0, 0) / 4, "a multicast address"),
        (.v4(240, 0, 0, 0) / 4, "a reserved address"),
    ]

    static let ipv6Blocks: [(network: IPNetwork, kind: String)] = [
        (.v6() / 128, "an unspecified address"),
        (.v6(0, 0, 0, 0, 0, 0, 0, 1) / 128, "a loopback address"),
        (.v6() / 96, "an IPv4-compatible address"),
        (.v6(0x64, 0xFF9B, 1) / 48, "a local NAT64 address"),
        (.v6(0x100) / 64, "a discard-only address"),
        (.v6(0x2001) / 23, "an IETF protocol address (Teredo, benchmarking)"),
        (.v6(0x2001, 0xDB8) / 32, "a documentation address"),
        (.v6(0x3FFF) / 20, "a documentation address"),
        (.v6(0x5F00) / 16, "a segment-routing address"),
        (.v6(0xFC00) / 7, "a unique-local address"),
        (.v6(0xFE80) / 10, "a link-local address"),
        (.v6(0xFEC0) / 10, "a site-local address"),
        (.v6(0xFF00) / 8, "a multicast address"),
    ]
}
