import PasskeyRelyingParty
import PasskeyServerTestSupport
import PasskeyStorage
import Testing

/// Where webhook receivers may be, read as every HTTP client reads an address: the spellings, the special-purpose
/// blocks, the strict URL. The attacker-style tests over HTTP are in WebhookAPITests and WebhookRebindingTests.
@Suite("Webhook receivers: addresses, URLs and the policy")
struct WebhookReceiverPolicyTests {
    @Test("every spelling C libraries and browsers take for an IPv4 address is read as that address", arguments: [
        ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("017700000001", "127.0.0.1"), ("0x7f000001", "127.0.0.1"), ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"), ("0177.0.0.01", "127.0.0.1"), ("0", "0.0.0.0"), ("0x0", "0.0.0.0"), ("10.0.0.1.", "10.0.0.1"),
        ("169.254.43518", "169.254.169.254"), ("0xA9FEA9FE", "169.254.169.254"), ("8.8.8.8", "8.8.8.8"),
    ])
    func looseIPv4(text: String, address: String) throws {
        #expect(IPAddress.endsInANumber(text))
        #expect(IPAddress.looseIPv4(text)?.description == address)
    }

    @Test("numbers that are no address are refused, not wrapped", arguments: ["4294967296", "256.0.0.1", "1.2.3.4.5", "0x1g", "08", "1..2", "0x100000000"])
    func notIPv4(text: String) {
        #expect(IPAddress.looseIPv4(text) == nil)
    }

    @Test("IPv6 text: groups, one ::, an IPv4 tail; canonical output (RFC 5952)", arguments: [
        ("::1", "::1"), ("::", "::"), ("::ffff:127.0.0.1", "::ffff:7f00:1"), ("fd00:ec2::254", "fd00:ec2::254"), ("2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("64:ff9b::10.0.0.1", "64:ff9b::a00:1"),
    ])
    func ipv6(text: String, canonical: String) throws {
        #expect(try #require(IPAddress(text)).description == canonical)
    }

    @Test("malformed IPv6 is not an address", arguments: ["1:2:3:4:5:6:7:8:9", ":::1", "1::2::3", "fe80::1%eth0", "12345::", "::1.2.3", ":1", "1:", "::ffff:1.2.3.04"])
    func notIPv6(text: String) {
        #expect(IPAddress(text) == nil)
    }

    static let policy = WebhookReceiverPolicy(ownAddresses: [IPAddress.v4(203, 0, 114, 9), IPAddress.v6(0x2a00, 0x1450, 0, 0, 0, 0, 0, 9)])

    @Test("special-purpose addresses are refused, with their kind", arguments: [
        ("127.0.0.1", "a loopback address"), ("::1", "a loopback address"), ("0.0.0.0", "an unspecified address (this network)"),
        ("::", "an unspecified address"), ("10.0.0.1", "a private address"), ("172.31.255.255", "a private address"),
        ("192.168.1.1", "a private address"), ("169.254.169.254", "a link-local address"), ("fe80::1", "a link-local address"),
        ("fd00:ec2::254", "a unique-local address"), ("100.64.0.1", "a carrier-grade NAT address"), ("224.0.0.1", "a multicast address"),
        ("ff02::1", "a multicast address"), ("255.255.255.255", "a reserved address"), ("::ffff:127.0.0.1", "a loopback address inside an IPv6 one"),
        ("::ffff:10.1.2.3", "a private address inside an IPv6 one"), ("64:ff9b::169.254.169.254", "a link-local address inside an IPv6 one"),
        ("2002:7f00:1::", "a loopback address inside an IPv6 one"), ("2001:db8::1", "a documentation address"), ("::7f00:1", "an IPv4-compatible address"),
        ("2001::1", "an IETF protocol address (Teredo, benchmarking)"), ("198.18.0.1", "a benchmarking address"), ("fec0::1", "a site-local address"),
        ("203.0.114.9", "an address of this machine"), ("2a00:1450::9", "an address of this machine"), ("4000::1", "a reserved address"),
    ])
    func specialPurpose(text: String, kind: String) throws {
        let address = try #require(IPAddress(text))
        #expect(Self.policy.refusal(of: address, through: .address(address)) == kind)
    }

    @Test("public addresses may receive, IPv4 ones also inside IPv6", arguments: ["8.8.8.8", "93.184.215.14", "2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1"])
    func publicAddresses(text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(Self.policy.refusal(of: address, through: .address(address)) == nil)
    }

    @Test("an allowed network or host opens exactly that, and http:// only to it")
    func operatorAllowances() throws {
        let policy = WebhookReceiverPolicy(allowedNetworks: [try #require(IPNetwork("10.1.0.0/16"))], allowedHosts: ["Hooks.Internal.Example.com"])
        #expect(policy.refusal(of: try #require(IPAddress("10.1.2.3")), through: .name("x.example.com")) == nil)
        #expect(policy.refusal(of: try #require(IPAddress("10.2.0.1")), through: .name("x.example.com")) == "a private address")
        #expect(policy.refusal(of: try #require(IPAddress("127.0.0.1")), through: .name("hooks.internal.example.com")) == nil)
        #expect(policy.refusal(of: try WebhookURL(parsing: "http://10.1.0.9:8080/hooks")) == nil)
        #expect(policy.refusal(of: try WebhookURL(parsing: "http://HOOKS.internal.example.com/hooks")) == nil)
        #expect(policy.refusal(of: try WebhookURL(parsing: "http://hooks.example.com/hooks"))?.hasPrefix("http:// is only for receivers") == true)
        #expect(IPNetwork("10.1.0.1/16") == nil, "host bits set")
        #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("fd00::/129") == nil && IPNetwork("10.0.0.0/") == nil)
    }

    @Test("an allowed network opens IPv4 addresses in their IPv6 forms too, but not the machine's own, unless loopback or named")
    func allowedNetworkEdges() throws {
        let own = IPAddress.v4(10, 0, 0, 5)
        let policy = WebhookReceiverPolicy(
            allowedNetworks: [try #require(IPNetwork("10.0.0.0/8")), try #require(IPNetwork("127.0.0.0/8"))], allowedHosts: ["self.example.com"],
            ownAddresses: [own, IPAddress.v4(127, 0, 0, 1)])
        #expect(policy.refusal(of: try #require(IPAddress("::ffff:10.1.1.1")), through: .name("x.example.com")) == nil)
        #expect(policy.refusal(of: try #require(IPAddress("64:ff9b::a01:101")), through: .name("x.example.com")) == nil)
        #expect(policy.refusal(of: own, through: .name("x.example.com")) == "a private address", "the server's own address in an allowed network")
        #expect(policy.refusal(of: try WebhookURL(parsing: "https://10.0.0.5:5432/")) != nil)
        #expect(policy.refusal(of: own, through: .name("self.example.com")) == nil, "named by the operator")
        #expect(policy.refusal(of: IPAddress.v4(127, 0, 0, 1), through: .name("x.example.com")) == nil, "an allowed loopback network")
    }

    @Test("a URL is kept in one spelling: scheme and host in lower case, IPv6 canonical, the port a plain number", arguments: [
        ("HTTPS://Hooks.Example.COM/Path?Q=1", "https://hooks.example.com/Path?Q=1"), ("https://[2606:4700:0:0::1111]:08443/x", "https://[2606:4700::1111]:8443/x"),
        ("https://8.8.8.8", "https://8.8.8.8"),
    ])
    func canonicalText(text: String, canonical: String) throws {
        #expect(try WebhookURL(parsing: text).text == canonical)
    }

    @Test("names that never lead to a public receiver are refused by name", arguments: [
        "metadata.google.internal", "localhost", "api.localhost", "printer.local", "nas.home.arpa", "db", "x.corp", "hooks.test",
    ])
    func specialUseNames(name: String) throws {
        let refusal = WebhookReceiverPolicy().refusal(of: try WebhookURL(parsing: "https://\(name)/hooks"))
        #expect(refusal?.hasPrefix("\(name) is ") == true, "\(String(describing: refusal))")
    }

    @Test("URLs are read strictly: one thing wrong at a time", arguments: [
        ("https://hooks.example.com/a\rhttps://backend.example.com/hooks", "U+000D"), ("https://hooks.example.com/\u{1B}[2J", "U+001B"),
        ("https://hooks.example.com/a\u{0}", "U+0000"), ("https://hooks.example.com/a\tb", "U+0009"), ("https://hooks.example.com/a b", "a space"),
        ("https://hooks.example.com/\u{202E}x", "U+202E"), ("https://hooks.example.com:0/", "port"), ("https://hooks.example.com:65536/", "port"),
        ("https://hooks.example.com:/", "port"), ("https://hooks.example.com:+443/", "port"), ("https://user@hooks.example.com/", "user name"),
        ("https://hooks.example.com/#x", "fragment"), ("ftp://hooks.example.com/", "scheme"), ("hooks.example.com/x", "absolute"),
        ("https://hooks.example.com./", "trailing dot"), ("https://hooks_example.com/", "host name"), ("https://[fe80::1%25eth0]/", "has a zone"),
        ("https://hooks.example.com/%zz", "hexadecimal"), ("https://hooks.example.com/a\\b", "percent-encoded"), ("https://hooks.example.com/<x>", "percent-encoded"),
        ("https://2130706433/", "127.0.0.1; write it as such"), ("https://0x7f.1/", "127.0.0.1; write it as such"),
        ("https://017700000001/", "127.0.0.1; write it as such"), ("https://4294967296/", "not an IPv4 address"), ("https://ｅxample.com/", "U+FF45"),
        ("https://xn--80ak6aa92e.com:443/", nil), ("https://[2606:4700::1111]:8443/hooks?x=1&y=%2F", nil),
    ] as [(String, String?)])
    func strictURLs(text: String, problem: String?) {
        do {
            let url = try WebhookURL(parsing: text)
            #expect(problem == nil, "\(text) was accepted as \(url.host)")
        } catch {
            #expect(error.code == .webhookURLInvalid)
            #expect(problem.map { error.message.contains($0) } == true, "\(text): \(error.message)")
        }
    }

    @Test("the system resolver reads /etc/hosts as every program does, and says why a name has no address")
    func systemResolver() async throws {
        let loopback = try await SystemHostResolver().addresses(of: "localhost")
        #expect(loopback.contains(IPAddress.v4(127, 0, 0, 1)), "\(loopback)")
        do {
            _ = try await SystemHostResolver().addresses(of: "no-such-name.invalid")
            Issue.record("a .invalid name resolved")
        } catch {
            #expect(!error.description.isEmpty)
        }
        #expect(SystemHostResolver.interfaceAddresses().contains(IPAddress.v4(127, 0, 0, 1)))
    }
}
