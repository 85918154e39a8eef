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
        id = root["id"]?.stringValue ?? fallbackID
        summary = root["summary"]?.stringValue
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
        let origins = rp["origins"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !origins.isEmpty else { throw FixtureError("relyingParty.origins must list at least one origin") }
        relyingParty = RelyingPartyExpectations(
            challenge: challenge, origins: origins, rpID: rpID,
            requireUserVerification: rp["requireUserVerification"]?.boolValue ?? false,
            requireUserPresence: rp["requireUserPresence"]?.boolValue ?? true,
            allowedAlgorithms: rp["allowedAlgorithms"]?.arrayValue?.compactMap(\.intValue).map(COSEAlgorithmIdentifier.init(rawValue:)))
        if let stored = root["storedCredential"]?.objectValue {
            guard let id = stored["id"]?.stringValue, let key = stored["publicKey"]?.stringValue else {
                throw FixtureError("storedCredential needs \"id\" and \"publicKey\"")
            }
            let count = stored["signCount"]?.intValue ?? 0
            guard let signCount = UInt32(exactly: count) else { throw FixtureError("storedCredential.signCount is out of range") }
            storedCredential = StoredCredential(id: id, publicKey: key, signCount: signCount, userHandle: stored["userHandle"]?.stringValue)
        } else if ceremony == .authentication {
            throw FixtureError("an authentication fixture needs \"storedCredential\"")
        }
        if let trust = root["attestationTrust"]?.objectValue {
            let layoutRoot = ["registration", "authentication"].contains(baseDirectory.lastPathComponent)
                ? baseDirectory.deletingLastPathComponent() : baseDirectory
            let roots = (trust["roots"]?.arrayValue ?? []).compactMap(\.stringValue).map { path -> URL in
                let direct = baseDirectory.appendingPathComponent(path)
                if FileManager.default.fileExists(atPath: direct.path) { return direct }
                return layoutRoot.appendingPathComponent(path)
            }
            var time: Date?
            if let text = trust["currentTime"]?.stringValue {
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

/// A fixture file that cannot be used (unreadable, not the schema). The CLI exits with status 2.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
