public import PasskeyWire
public import Foundation

/// One WebAuthn verification case in the documented fixture schema (fixtureVersion 1): a credential as a browser
/// posts it, what the relying party expected, the stored credential (sign-ins) or trust roots (registrations),
/// and the expected outcome.
public struct VerificationFixture: Sendable {
    public enum Ceremony: String, Sendable { case registration, authentication }

    public struct RelyingPartyExpectations: Sendable {
        public var challenge: String
        public var origins: [String]
        public var rpID: String
        public var requireUserVerification: Bool
        public var requireUserPresence: Bool
        public var allowedAlgorithms: [COSEAlgorithmIdentifier]?
    }

    public struct StoredCredential: Sendable {
        public var id: String
        public var publicKey: String
        public var signCount: UInt32
        public var userHandle: String?
    }

    public struct AttestationTrust: Sendable {
        /// PEM files, resolved against the fixture's folder.
        public var roots: [URL]
        public var currentTime: Date?
    }

    public var id: String
    public var ceremony: Ceremony
    public var summary: String?
    /// The credential JSON exactly as in the file.
    public var credential: JSONValue
    public var relyingParty: RelyingPartyExpectations
    public var storedCredential: StoredCredential?
    public var attestationTrust: AttestationTrust?
    /// The `expected` block, for tests to compare with.
    public var expected: JSONObject

    /// Reads a fixture file. Relative root paths resolve against the file's folder, or its parent when the file
    /// sits in `registration/` or `authentication/` as in the shared layout.
    public init(contentsOf url: URL) throws(FixtureError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw FixtureError("cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(bytes: [UInt8](data), url: url)
    }

    /// A fixture file's contents, already read: `url` names the file in errors and anchors relative root paths.
    public init(bytes: [UInt8], url: URL) throws(FixtureError) {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw FixtureError("\(url.lastPathComponent) is not JSON: \(error)") }
        try self.init(
            json: json, baseDirectory: url.deletingLastPathComponent(), fallbackID: url.deletingPathExtension().lastPathComponent,
            source: url.lastPathComponent)
    }

    /// The one schema version this reader understands.
    public static let supportedVersion = 1

    /// `source` names the fixture in errors.
    public init(json: JSONValue, baseDirectory: URL, fallbackID: String = "fixture", source: String = "the fixture") throws(FixtureError) {
        guard case .object(let root) = json else { throw FixtureError("a fixture must be a JSON object") }
        // A file of another version (or none) may mean something else by the same members: read as version 1, it could
        // be called valid where its own schema would not.
        let supported = "this passkey reads fixtureVersion \(Self.supportedVersion)"
        switch root["fixtureVersion"] {
        case nil: throw FixtureError("\(source) has no fixtureVersion; \(supported)")
        case .number(let version) where version == Double(Self.supportedVersion): break
        case .number(let version): throw FixtureError("\(source) has fixtureVersion \(JSONValue.number(version).serialized()); \(supported)")
        case let other?:
            throw FixtureError("\(source) has fixtureVersion \(other.serialized()) (a \(other.typeName), not a number); \(supported)")
        }
        // A member of the wrong type is an error, never a default: read as absent, a `"requireUserVerification": "true"`
        // or a `"signCount": "100"` would switch a check off and call the ceremony valid.
        id = try Self.member(root, "id", in: "the fixture", "a string", \.stringValue) ?? fallbackID
        summary = try Self.member(root, "summary", in: "the fixture", "a string", \.stringValue)
        guard let ceremonyName = root["ceremony"]?.stringValue, let ceremony = Ceremony(rawValue: ceremonyName) else {
            throw FixtureError("\"ceremony\" must be \"registration\" or \"authentication\"")
        }
        self.ceremony = ceremony
        guard let credential = root["credential"], credential.objectValue != nil else { throw FixtureError("\"credential\" is missing") }
        self.credential = credential
        guard let rp = root["relyingParty"]?.objectValue else { throw FixtureError("\"relyingParty\" is missing") }
        guard let challenge = rp["challenge"]?.stringValue, let rpID = rp["rpId"]?.stringValue else {
            throw FixtureError("relyingParty needs \"challenge\" and \"rpId\"")
        }
        let origins = try Self.member(rp, "origins", in: "relyingParty", "a list of strings") { Self.list($0, \.stringValue) } ?? []
        guard !origins.isEmpty else { throw FixtureError("relyingParty.origins must list at least one origin") }
        let algorithms = try Self.member(rp, "allowedAlgorithms", in: "relyingParty", "a list of integers") { Self.list($0, \.intValue) }
        relyingParty = RelyingPartyExpectations(
            challenge: challenge, origins: origins, rpID: rpID,
            // Absent means required, as the server's own default.
            requireUserVerification: try Self.member(rp, "requireUserVerification", in: "relyingParty", "true or false", \.boolValue) ?? true,
            requireUserPresence: try Self.member(rp, "requireUserPresence", in: "relyingParty", "true or false", \.boolValue) ?? true,
            allowedAlgorithms: algorithms?.map(COSEAlgorithmIdentifier.init(rawValue:)))
        if let stored = try Self.member(root, "storedCredential", in: "the fixture", "an object", \.objectValue) {
            guard let id = stored["id"]?.stringValue, let key = stored["publicKey"]?.stringValue else {
                throw FixtureError("storedCredential needs \"id\" and \"publicKey\"")
            }
            let signCount = try Self.member(
                stored, "signCount", in: "storedCredential", "an integer from 0 to \(UInt32.max)", { $0.intValue.flatMap(UInt32.init(exactly:)) }) ?? 0
            let userHandle = try Self.member(stored, "userHandle", in: "storedCredential", "a base64url string or null") { value in
                value.stringValue.flatMap { Base64URL.decode($0) == nil ? nil : $0 }
            }
            storedCredential = StoredCredential(id: id, publicKey: key, signCount: signCount, userHandle: userHandle)
        } else if ceremony == .authentication {
            throw FixtureError("an authentication fixture needs \"storedCredential\"")
        }
        if let trust = try Self.member(root, "attestationTrust", in: "the fixture", "an object", \.objectValue) {
            let layoutRoot = ["registration", "authentication"].contains(baseDirectory.lastPathComponent)
                ? baseDirectory.deletingLastPathComponent() : baseDirectory
            let paths = try Self.member(trust, "roots", in: "attestationTrust", "a list of file paths") { Self.list($0, \.stringValue) } ?? []
            let roots = paths.map { path -> URL in
                let direct = baseDirectory.appendingPathComponent(path)
                if FileManager.default.fileExists(atPath: direct.path) { return direct }
                return layoutRoot.appendingPathComponent(path)
            }
            var time: Date?
            if let text = try Self.member(trust, "currentTime", in: "attestationTrust", "an RFC 3339 time", \.stringValue) {
                guard let parsed = ISO8601DateFormatter().date(from: text) else {
                    throw FixtureError("attestationTrust.currentTime is not an RFC 3339 time: \(text)")
                }
                time = parsed
            }
            attestationTrust = AttestationTrust(roots: roots, currentTime: time)
        }
        expected = root["expected"]?.objectValue ?? [:]
    }
}

extension VerificationFixture {
    /// `object[name]` read by `read`; nil when absent or null. Throws, naming the member and what it must be, when it is
    /// there with another type or value.
    static func member<T>(
        _ object: JSONObject, _ name: String, in path: String, _ kind: String, _ read: (JSONValue) -> T?
    ) throws(FixtureError) -> T? {
        guard let value = object[name], value != .null else { return nil }
        guard let typed = read(value) else {
            let shown = value.serialized()
            throw FixtureError("\(path == "the fixture" ? "" : path + ".")\(name) must be \(kind), not \(shown.count > 80 ? shown.prefix(80) + "…" : shown)")
        }
        return typed
    }

    /// Every element of an array read by `read`, or nil when it is not an array or an element does not read.
    static func list<T>(_ value: JSONValue, _ read: (JSONValue) -> T?) -> [T]? {
        guard let array = value.arrayValue else { return nil }
        var result: [T] = []
        for element in array {
            guard let typed = read(element) else { return nil }
            result.append(typed)
        }
        return result
    }
}

/// A fixture file that cannot be used (unreadable, not the schema). The CLI exits with status 2.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
