import Foundation

/// The address a request is counted under for rate limits and shown in the event log.
///
/// Behind a trusted proxy it is the last `X-Forwarded-For` entry: the address the proxy itself saw and appended (or
/// wrote, for proxies that replace the header). Earlier entries come from the client and prove nothing. IPv6 addresses
/// count by their /64 prefix, the block one subscriber usually holds, so one machine cannot spread its requests over
/// 2⁶⁴ addresses. A last entry that is not an IP address (`garbage-not-ip`, a client's text a misconfigured proxy
/// passed on) is not taken: it would be a fresh key for every request. The request then counts under the proxy's own
/// address, as all such requests do.
func clientKey(forwardedFor: [String], peer: String?) -> String {
    if let last = forwardedFor.flatMap({ $0.split(separator: ",") }).last, let key = addressKey(last.trimmingCharacters(in: .whitespaces)) {
        return key
    }
    guard let peer else { return "unknown" }
    return addressKey(peer) ?? peer
}

/// The rate-limit key of an address as proxies write it: an IPv4 address without the `:port` some proxies append
/// (and IPv4-mapped IPv6 addresses, `::ffff:a.b.c.d`, as IPv4), an IPv6 address (`[…]:port` too) as its /64
/// (`2001:db8:1:2::/64`); nil for anything that is neither.
func addressKey(_ address: String) -> String? {
    var text = Substring(address)
    if text.hasPrefix("["), let end = text.firstIndex(of: "]") { text = text[text.index(after: text.startIndex)..<end] }
    if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
    var ipv4 = in_addr()
    // `a.b.c.d` or `a.b.c.d:port`.
    let host = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    if host.count <= 2, String(host[0]).withCString({ inet_pton(AF_INET, $0, &ipv4) }) == 1 { return String(host[0]) }
    var bytes = [UInt8](repeating: 0, count: 16)
    guard String(text).withCString({ inet_pton(AF_INET6, $0, &bytes) }) == 1 else { return nil }
    if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
        return bytes.suffix(4).map(String.init).joined(separator: ".")
    }
    let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
    return groups.joined(separator: ":") + "::/64"
}
