/// A webhook receiver's URL, read strictly: what it names must be what every HTTP client, terminal and log reads it
/// as. `http` or `https`, a host that is an LDH name, a dotted-decimal IPv4 address or a bracketed IPv6 address, a
/// port of 1–65535, and a path and query of printable ASCII in RFC 3986's characters, percent-encoded as it says. No
/// user information (it would be sent with every message), no fragment, no spaces, control or bidirectional
/// characters, nothing that only looks like a URL once a terminal has drawn it (`https://10.0.0.1/x\rhttps://…`).
///
/// A host that ends in a number is read as an IPv4 address, as browsers and C libraries read it; any spelling but
/// dotted decimal (`2130706433`, `0x7f.1`, `017700000001`) is refused, saying which address it is.
public struct WebhookURL: Sendable, Hashable {
    public enum Host: Sendable, Hashable, CustomStringConvertible {
        /// Lower case, without a trailing dot.
        case name(String)
        case address(IPAddress)

        public var description: String {
            switch self {
            case .name(let name): name
            case .address(let address): address.description
            }
        }
    }

    /// `http` or `https`, lower case.
    public let scheme: String
    public let host: Host
    /// The port given, or the scheme's (443, 80).
    public let port: Int
    /// The URL in one spelling: the scheme and a host name in lower case, an IPv6 address in RFC 5952's form, the port
    /// as a plain number; the path and query as written. What is stored, and what a transport requests: an HTTP client
    /// that looks the host up by its spelling finds the one the policy checked.
    public let text: String

    public static var maximumLength: Int { 2048 }

    /// Reads `text`; throws `webhook_url_invalid` saying what is wrong.
    public init(parsing text: String) throws(RelyingPartyError) {
        func invalid(_ why: String) -> RelyingPartyError { RelyingPartyError(.webhookURLInvalid, "The webhook URL is not valid: \(why)") }
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            throw invalid("it must be 1 to \(Self.maximumLength) bytes long.")
        }
        if let odd = text.unicodeScalars.first(where: { !(0x21...0x7E).contains($0.value) }) {
            throw invalid(
                "it holds \(odd == " " ? "a space" : "U+" + IdentifierClass.hex(odd)); a URL is printable ASCII only (percent-encode the rest).")
        }
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[(colon + 1)...].starts(with: Array("//".utf8)) else {
            throw invalid("it must be an absolute https:// URL.")
        }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "https" || scheme == "http" else { throw invalid("its scheme must be https (or http for a receiver beside the server).") }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        let authority = bytes[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw invalid("it may not hold a user name or password (they would be sent with every message).") }
        guard !bytes.contains(UInt8(ascii: "#")) else { throw invalid("it may not have a fragment (#…).") }
        // Host and port.
        let hostText: Substring
        var portText: Substring?
        let authorityString = String(decoding: authority, as: UTF8.self)
        if authorityString.hasPrefix("[") {
            guard let close = authorityString.firstIndex(of: "]") else { throw invalid("its IPv6 address has no closing ].") }
            hostText = authorityString[authorityString.index(after: authorityString.startIndex)..<close]
            let rest = authorityString[authorityString.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("only a port may follow its IPv6 address.") }
                portText = rest.dropFirst()
            }
        } else {
            let parts = authorityString.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            hostText = parts[0]
            if parts.count == 2 { portText = parts[1] }
        }
        var port = scheme == "https" ? 443 : 80
        var portSuffix = ""
        if let portText {
            guard (1...5).contains(portText.count), portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(portText),
                (1...65535).contains(value)
            else { throw invalid("its port must be a number from 1 to 65535.") }
            port = value
            portSuffix = ":\(value)"
        }
        let host = try Self.host(hostText, bracketed: authorityString.hasPrefix("["), invalid: invalid)
        let rest = bytes[authorityEnd...]
        try Self.checkPathAndQuery(rest, invalid: invalid)
        self.scheme = scheme
        self.host = host
        self.port = port
        let canonicalHost: String
        switch host {
        case .name(let name): canonicalHost = name
        case .address(let address): canonicalHost = address.isIPv4 ? address.description : "[\(address)]"
        }
        self.text = scheme + "://" + canonicalHost + portSuffix + String(decoding: rest, as: UTF8.self)
    }

    /// The host as written between `//` and the port: an IPv6 address in brackets (`bracketed`), an IPv4 address in its
    /// one canonical spelling, or a host name (``hostName(_:invalid:)``).
    static func host(_ hostText: Substring, bracketed: Bool, invalid: (String) -> RelyingPartyError) throws(RelyingPartyError) -> Host {
        if bracketed {
            guard let address = IPAddress.ipv6(String(hostText)) else {
                throw invalid(hostText.contains("%") ? "its IPv6 address has a zone (%…), which a receiver on the internet does not." : "[\(hostText)] is not an IPv6 address.")
            }
            return .address(address)
        }
        if IPAddress.endsInANumber(String(hostText)) {
            guard let address = IPAddress.looseIPv4(String(hostText)) else { throw invalid("its host \(hostText) is not an IPv4 address.") }
            guard address.description == hostText else {
                throw invalid("its host \(hostText) is the IPv4 address \(address); write it as such.")
            }
            return .address(address)
        }
        return .name(try Self.hostName(hostText, invalid: invalid))
    }

    /// Path and query: RFC 3986 pchar, "/" and "?", percent-encoding well formed.
    static func checkPathAndQuery(_ rest: ArraySlice<UInt8>, invalid: (String) -> RelyingPartyError) throws(RelyingPartyError) {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%".utf8)
        if let odd = rest.first(where: { !allowed.contains($0) }) {
            throw invalid("its path or query holds \"\(Character(Unicode.Scalar(odd)))\", which must be percent-encoded.")
        }
        var index = rest.startIndex
        while let percent = rest[index...].firstIndex(of: UInt8(ascii: "%")) {
            let digits = rest[(percent + 1)...].prefix(2)
            guard digits.count == 2, digits.allSatisfy({ Unicode.Scalar($0).properties.isASCIIHexDigit }) else {
                throw invalid("a % in its path or query is not followed by two hexadecimal digits.")
            }
            index = percent + 3
        }
    }

    /// An LDH host name (RFC 1123: letters, digits and inner hyphens, labels of 1–63, 253 in all), lower-cased;
    /// international names in their `xn--` form.
    static func hostName(_ text: Substring, invalid: (String) -> RelyingPartyError) throws(RelyingPartyError) -> String {
        guard !text.isEmpty else { throw invalid("it has no host.") }
        guard text.count <= 253, !text.hasSuffix(".") else { throw invalid("its host \(text) is not a host name (no trailing dot, at most 253 characters).") }
        for label in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.count), label.first != "-", label.last != "-",
                label.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
            else {
                throw invalid("its host \(text) is not a host name: letters, digits and inner hyphens, in labels of 1 to 63 (an international name in its xn-- form).")
            }
        }
        return text.lowercased()
    }
}
