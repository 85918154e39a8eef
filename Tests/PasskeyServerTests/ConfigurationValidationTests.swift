import Foundation
import PasskeyServer
import PasskeyWire
@testable import PasskeyServerApp
import Testing

/// Settings that cannot work are refused at start with a sentence, never accepted to fail later (or crash).
@Suite("Configuration checks")
struct ConfigurationValidationTests {
    /// One setting wrong at a time, and the words the error must contain.
    static let wrong: [(String, @Sendable (inout ServerConfiguration) -> Void, String)] = [
        ("infinite challenge TTL", { $0.challengeTTL = .infinity }, "--challenge-ttl"),
        ("huge challenge TTL", { $0.challengeTTL = 1e300 }, "--challenge-ttl"),
        ("NaN challenge TTL", { $0.challengeTTL = .nan }, "--challenge-ttl"),
        ("infinite signed data lifetime", { $0.connect.signedDataLifetime = .infinity }, "token lifetimes"),
        ("huge connect token lifetime", { $0.connect.connectTokenLifetime = 1e18 }, "token lifetimes"),
        ("infinite dashboard session", { $0.dashboard.sessionAbsoluteTimeout = .infinity }, "idle timeout"),
        ("upper-case RP ID", { $0.rpID = "Example.com" }, "--rp-id"),
        ("RP ID with a space", { $0.rpID = "exa mple.com" }, "--rp-id"),
        ("RP ID with an empty label", { $0.rpID = "example..com" }, "--rp-id"),
        ("origin with a path", { $0.origins = ["https://example.com/login"] }, "no path"),
        ("origin with a query", { $0.origins = ["https://example.com?x=1"] }, "no path"),
        ("origin with upper case", { $0.origins = ["https://Example.com"] }, "lower case"),
        ("origin with user info", { $0.origins = ["https://user@example.com"] }, "no path"),
        ("origin with a bad port", { $0.origins = ["https://example.com:99999"] }, "scheme://host[:port]"),
        ("unknown algorithm", { $0.algorithms = [COSEAlgorithmIdentifier(rawValue: 0)] }, "--algorithm 0"),
        ("Apple app ID without team", { $0.appleAppIDs = ["com.example.app"] }, "--apple-app-id"),
        ("Apple app ID with a space", { $0.appleAppIDs = ["garbage id"] }, "--apple-app-id"),
        ("port 0 with the default localhost origin", { $0.port = 0 }, "--port 0"),
        ("port 0 with only an Android origin", { $0.port = 0; $0.origins = ["android:apk-key-hash:AbCd"] }, "--port 0"),
        ("failure limit 0", { $0.connect.rollout.failureLimit = 0 }, "--failure-limit"),
        ("negative failure limit", { $0.connect.rollout.failureLimit = -5 }, "--failure-limit"),
        ("negative decline cooldown", { $0.connect.rollout.declineCooldownDays = -3 }, "--decline-cooldown-days"),
        ("rollout over 100 %", { $0.connect.rollout.percentage = 101 }, "--rollout-percentage"),
        ("public URL with a path", { $0.rpID = "example.com"; $0.publicURL = "https://auth.example.com/passkeys" }, "--public-url"),
        ("public URL with a slash", { $0.rpID = "example.com"; $0.publicURL = "https://auth.example.com/" }, "no path (not even /)"),
        ("public URL outside the RP ID", { $0.rpID = "example.com"; $0.publicURL = "https://auth.example.net" }, "only on example.com and its subdomains"),
        ("public URL on a suffix look-alike", { $0.rpID = "example.com"; $0.publicURL = "https://badexample.com" }, "its subdomains"),
        ("public URL over plain HTTP", { $0.rpID = "example.com"; $0.publicURL = "http://auth.example.com" }, "use https://"),
        ("public URL with another scheme", { $0.publicURL = "ftp://localhost" }, "--public-url ftp://localhost must be scheme://host"),
        ("enroll page over plain HTTP", { $0.enrollURL = "http://example.com/passkeys/new" }, "--enroll-url http://example.com/passkeys/new must be an absolute https:// URL"),
        ("manage page without a host", { $0.manageURL = "/account/passkeys" }, "--manage-url /account/passkeys must be an absolute https:// URL"),
        ("PRF page with a script scheme", { $0.prfUsageURL = "javascript:alert(1)" }, "--prf-usage-url"),
        ("manage page with credentials", { $0.manageURL = "https://user:secret@example.com/passkeys" }, "--manage-url"),
        ("enroll page with a space", { $0.enrollURL = "https://example.com/pass keys" }, "--enroll-url"),
        ("public URL with an upper-case scheme", { $0.publicURL = "HTTP://localhost" }, "--public-url HTTP://localhost must be"),
        ("public URL with the default port", { $0.rpID = "example.com"; $0.publicURL = "https://auth.example.com:443" }, "write https://auth.example.com"),
        ("origin with the default port", { $0.origins = ["https://example.com:443"] }, "write https://example.com"),
        ("related origin with the default HTTP port", { $0.relatedOrigins = ["http://localhost:80"] }, "write http://localhost"),
    ]

    @Test("each wrong setting is refused with its name", arguments: wrong.indices)
    func refused(index: Int) {
        let (name, change, words) = Self.wrong[index]
        var configuration = ServerConfiguration()
        change(&configuration)
        do {
            try configuration.validate()
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.description.contains(words), "\(name): \(error.description)")
        }
    }

    @Test("settings people really use are accepted")
    func accepted() throws {
        var configuration = ServerConfiguration()
        configuration.rpID = "example.com"
        configuration.origins = [
            "https://example.com", "https://app.example.com:8443", "http://localhost:8080", "http://192.168.1.20:8080",
            "android:apk-key-hash:AbCdEf0123456789",
        ]
        configuration.appleAppIDs = ["ABCDE12345.com.example.App", "ABCDE12345.com.example.app-beta"]
        configuration.challengeTTL = 3600
        configuration.connect.signedDataLifetime = 86_400
        configuration.connect.rollout.declineCooldownDays = 0  // ask again every time
        configuration.connect.rollout.failureLimit = 1
        try configuration.validate()
        try ServerConfiguration().validate()
        // Port 0 is fine where the origin does not depend on the port.
        configuration.port = 0
        try configuration.validate()
    }

    @Test("settings that are valid but cannot work as meant are warned about at start")
    func warnings() throws {
        #expect(ServerConfiguration().warnings.isEmpty)
        var c = ServerConfiguration()
        c.rpID = "example.com"
        c.origins = ["https://www.example.com", "https://example.com"]
        c.appleAppIDs = ["ABCDE12345.com.example.App"]
        c.relatedOrigins = ["https://example.co.uk"]
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        // Without --origin the default origin https://example.com is what the app reports: nothing to warn about.
        c.origins = []
        #expect(c.warnings.isEmpty, "\(c.warnings)")

        // The website alone: the app's origin is missing.
        c.origins = ["https://www.example.com"]
        #expect(c.warnings.count == 1)
        #expect(c.warnings.first?.contains("Add --origin https://example.com") == true, "\(c.warnings)")

        // An origin outside the RP ID, unless it is a related origin.
        c.origins = ["https://example.com", "https://shop.example.org", "http://192.168.1.20:8080"]
        #expect(c.warnings.count == 2, "\(c.warnings)")
        #expect(c.warnings.contains { $0.hasPrefix("--origin https://shop.example.org is not on RP ID example.com") })
        #expect(c.warnings.contains { $0.hasPrefix("--origin http://192.168.1.20:8080 is http:// on a host other than localhost") })
        c.relatedOrigins = ["https://shop.example.org"]
        #expect(c.warnings.count == 1, "\(c.warnings)")
        // A page on an IP address can use the RP ID only as a related origin.
        c.origins = ["https://example.com", "https://10.0.0.2:8443"]
        #expect(c.warnings.first?.hasSuffix("(a page on an IP address can use passkeys only as a related origin).") == true, "\(c.warnings)")
        c.relatedOrigins = ["http://shop.example.org"]
        #expect(c.warnings.contains("--related-origin http://shop.example.org is http:// on a host other than localhost: browsers allow passkeys there only over https://."))
        c.relatedOrigins = []
        // Android origins are not web origins: no host to compare.
        c.origins = ["https://example.com", "android:apk-key-hash:AbCdEf0123456789"]
        #expect(c.warnings.isEmpty, "\(c.warnings)")

        // More than five site names in /.well-known/webauthn: the sixth and later may be ignored.
        c.relatedOrigins = ["https://a.org", "https://b.org", "https://c.org", "https://d.org", "https://e.org"]
        #expect(c.warnings.count == 1, "\(c.warnings)")
        #expect(c.warnings.first?.contains("browsers may ignore https://e.org") == true, "\(c.warnings)")
    }

    @Test("the database as the banner shows it never carries a PostgreSQL password")
    func databaseDescription() {
        #expect(DatabaseURL.described("postgres://ann:s3cret@db.example:5432/passkeys?sslmode=require") == "postgres://ann@db.example:5432/passkeys")
        // Unreadable: shown without any part of it.
        #expect(DatabaseURL.described("postgresql://ann:s3cret@db.example/passkeys?unknown=1") == "a postgres:// URL")
        #expect(DatabaseURL.described("sqlite:./data/passkey.sqlite") == "sqlite:./data/passkey.sqlite")
    }

    @Test("--database takes sqlite:PATH, postgres:// URLs and memory:, read in one place", arguments: ["sqlite:", "mysql://x", "", "memory", "./data.sqlite"])
    func databaseForms(value: String) {
        #expect(throws: ConfigurationError.self) { try DatabaseURL(value) }
        if case .sqlite(let path) = try? DatabaseURL("sqlite:/var/lib/passkey.sqlite") { #expect(path == "/var/lib/passkey.sqlite") } else { Issue.record("sqlite") }
        if case .memory = try? DatabaseURL("memory:") {} else { Issue.record("memory") }
        if case .postgres = try? DatabaseURL("postgresql://ann@db/passkeys") {} else { Issue.record("postgres") }
    }

    @Test("/.well-known/passkey-endpoints: the pages given; by default this server's page to enroll, only where its address is known and anyone may register")
    func passkeyEndpoints() {
        func members(_ configure: (inout ServerConfiguration) -> Void) -> [String] {
            var configuration = ServerConfiguration()
            configure(&configuration)
            let document = configuration.passkeyEndpoints
            return [("enroll", document.enroll), ("manage", document.manage), ("prfUsageDetails", document.prfUsageDetails)]
                .compactMap { member, url in url.map { "\(member)=\($0)" } }
        }
        #expect(members { _ in } == ["enroll=http://localhost:8080/"])
        #expect(members { $0.publicRegistration = false } == [], "no page creates passkeys for new accounts")
        // The first --origin may be the website, not this server: no guess.
        #expect(members { $0.rpID = "example.com"; $0.origins = ["https://www.example.com"] } == [])
        #expect(members { $0.rpID = "example.com"; $0.origins = ["https://www.example.com"]; $0.publicURL = "https://auth.example.com" } == [
            "enroll=https://auth.example.com/"
        ])
        #expect(
            members {
                $0.enrollURL = "https://example.com/account/passkeys/new"
                $0.manageURL = "https://example.com/account/passkeys"
                $0.prfUsageURL = "https://example.com/help/encryption"
            } == [
                "enroll=https://example.com/account/passkeys/new", "manage=https://example.com/account/passkeys",
                "prfUsageDetails=https://example.com/help/encryption",
            ])
        var valid = ServerConfiguration()
        valid.manageURL = "https://example.com/account/passkeys?tab=security#passkeys"
        #expect(throws: Never.self) { try valid.validate() }
    }
}
