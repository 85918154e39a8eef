import PasskeyRelyingParty
import Crypto
public import Foundation
import PasskeyCore
public import PasskeyStorage
import PasskeyWire

/// The file `passkey-server export` writes and `passkey-server import` reads: JSON Lines (one JSON object per line,
/// UTF-8). The first line says what the file is; every other line is one ``TransferRecord``, with a `"type"`: `user`,
/// `passkey`, `admin`, `adminPasskey`, `apiKey`, `signingKey` or `secret`. Bytes are base64url without padding, as on
/// the wire; times are ISO 8601 (`2026-11-21T10:00:00.123Z`). docs/deploy.md lists every field.
///
/// The same file brings passkeys in from another server: only a user's `id` and `userHandle` and a passkey's `id`,
/// `userId` and `publicKey` (the COSE key the authenticator made) are required; the rest has defaults. Every line is
/// checked as the server checks what it registers, so that an import cannot store a passkey that could never sign in
/// or an account name sign-in could not find.
public enum TransferFile {
    /// The first line's `format`.
    public static let format = "passkey-server-export"
    public static let version = 1

    /// What the first line says.
    public struct Header: Sendable, Hashable {
        /// The RP ID the passkeys were made for: a passkey signs in only where the server keeps that RP ID.
        public var rpID: String?
        public var exportedAt: Date?
        public var includesSecrets: Bool

        public init(rpID: String?, exportedAt: Date?, includesSecrets: Bool) {
            self.rpID = rpID
            self.exportedAt = exportedAt
            self.includesSecrets = includesSecrets
        }
    }

    /// A line that cannot be imported: its number (from 1) and why.
    public struct LineError: Error, Hashable, Sendable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    // MARK: Writing

    public static func headerLine(_ header: Header) -> String {
        var object: JSONObject = ["format": .string(format), "version": .number(Double(version))]
        object["rpId"] = header.rpID.map(JSONValue.string)
        object["exportedAt"] = header.exportedAt.map { .string(time($0)) }
        object["includesSecrets"] = .bool(header.includesSecrets)
        return JSONValue.object(object).serialized()
    }

    public static func line(_ record: TransferRecord) -> String {
        var object = JSONObject()
        switch record {
        case .user(let user, let externalID):
            object["type"] = "user"
            object["id"] = .string(user.id)
            object["userHandle"] = .string(Base64URL.encode(user.userHandle))
            object["username"] = user.username.map(JSONValue.string) ?? .null
            object["displayName"] = .string(user.displayName)
            object["isAnonymous"] = .bool(user.isAnonymous)
            object["createdAt"] = .string(time(user.createdAt))
            object["lastSignInAt"] = optionalTime(user.lastSignInAt)
            object["disabledAt"] = optionalTime(user.disabledAt)
            object["tokensRevokedAt"] = optionalTime(user.tokensRevokedAt)
            object["externalUserId"] = externalID.map(JSONValue.string) ?? .null
        case .credential(let credential):
            object["type"] = "passkey"
            write(credential, owner: "userId", into: &object)
        case .admin(let admin):
            object["type"] = "admin"
            object["id"] = .string(admin.id)
            object["userHandle"] = .string(Base64URL.encode(admin.userHandle))
            object["name"] = .string(admin.name)
            object["createdAt"] = .string(time(admin.createdAt))
        case .adminCredential(let credential):
            object["type"] = "adminPasskey"
            write(credential, owner: "adminId", into: &object)
        case .apiKey(let key):
            object["type"] = "apiKey"
            object["id"] = .string(key.id)
            object["name"] = .string(key.name)
            object["prefix"] = .string(key.prefix)
            object["secretHash"] = .string(Base64URL.encode(key.secretHash))
            object["createdAt"] = .string(time(key.createdAt))
            object["lastUsedAt"] = optionalTime(key.lastUsedAt)
            object["revokedAt"] = optionalTime(key.revokedAt)
        case .signingKey(let key):
            object["type"] = "signingKey"
            object["id"] = .string(key.id)
            object["algorithm"] = .string(key.algorithm)
            object["privateKeyPem"] = .string(key.privateKeyPEM)
            object["createdAt"] = .string(time(key.createdAt))
            object["retiresAt"] = optionalTime(key.retiresAt)
        case .secret(let name, let value):
            object["type"] = "secret"
            object["name"] = .string(name)
            object["value"] = .string(Base64URL.encode(value))
        }
        return JSONValue.object(object).serialized()
    }

    static func write(_ credential: CredentialRecordEntry, owner: String, into object: inout JSONObject) {
        object["id"] = .string(Base64URL.encode(credential.id))
        object[owner] = .string(credential.userID)
        object["publicKey"] = .string(Base64URL.encode(credential.publicKey))
        object["algorithm"] = .number(Double(credential.algorithm))
        object["signCount"] = .number(Double(credential.signCount))
        object["uvInitialized"] = .bool(credential.uvInitialized)
        object["transports"] = .array(credential.transports.map(JSONValue.string))
        object["backupEligible"] = .bool(credential.backupEligible)
        object["backupState"] = .bool(credential.backupState)
        object["aaguid"] = .string(credential.aaguid)
        object["attestationFormat"] = .string(credential.attestationFormat)
        object["attestationType"] = .string(credential.attestationType)
        object["name"] = credential.name.map(JSONValue.string) ?? .null
        object["createdAt"] = .string(time(credential.createdAt))
        object["lastUsedAt"] = optionalTime(credential.lastUsedAt)
    }

    static func time(_ date: Date) -> String { TransferTime.format(date) }
    static func optionalTime(_ date: Date?) -> JSONValue { date.map { .string(time($0)) } ?? .null }

    /// A time with or without fractional seconds; nil when the text is not an RFC 3339 (ISO 8601) date-time.
    static func parseTime(_ text: String) -> Date? { TransferTime.parse(text) }

    // MARK: Reading

    /// Reads the first line. A file without one (a hand-made file from another server) has no header: the caller
    /// passes its first line to ``record(_:line:now:)`` instead when this returns nil.
    public static func header(_ text: String, line: Int = 1) throws(LineError) -> Header? { try header(Fields(text, line: line)) }

    static func header(_ fields: Fields) throws(LineError) -> Header? {
        let line = fields.line
        guard fields.object["type"] == nil else { return nil }
        guard try fields.string("format") == format else {
            throw LineError(line: line, reason: "\"format\" is not \"\(format)\": this is not a passkey-server export")
        }
        let fileVersion = try fields.integer("version", in: 1...Int(Int32.max))
        guard fileVersion == version else {
            throw LineError(line: line, reason: "the file is version \(fileVersion) of the format; this server reads version \(version): use a newer passkey-server")
        }
        try fields.only(["format", "version", "rpId", "exportedAt", "includesSecrets"], in: "the header")
        return Header(
            rpID: try fields.optionalString("rpId"), exportedAt: try fields.optionalTime("exportedAt", future: true),
            includesSecrets: try fields.optionalBool("includesSecrets") ?? false)
    }

    /// Each record type's fields (besides `type`).
    static let knownFields: [String: Set<String>] = {
        let passkey: Set<String> = [
            "id", "publicKey", "algorithm", "signCount", "uvInitialized", "transports", "backupEligible", "backupState", "aaguid",
            "attestationFormat", "attestationType", "name", "createdAt", "lastUsedAt",
        ]
        return [
            "user": [
                "id", "userHandle", "username", "displayName", "isAnonymous", "createdAt", "lastSignInAt", "disabledAt", "tokensRevokedAt",
                "externalUserId",
            ],
            "passkey": passkey.union(["userId"]),
            "adminPasskey": passkey.union(["adminId"]),
            "admin": ["id", "userHandle", "name", "createdAt"],
            "apiKey": ["id", "name", "prefix", "secretHash", "createdAt", "lastUsedAt", "revokedAt"],
            "signingKey": ["id", "algorithm", "privateKeyPem", "createdAt", "retiresAt"],
            "secret": ["name", "value"],
        ]
    }()

    /// The secrets a server keeps, and their sizes: an import takes no others. The OpenID Provider's RSA key (PKCS #1
    /// DER of a 2048-bit key) moves, so that ID tokens issued before a move still verify and clients keep their JWKS.
    static let knownSecrets: [String: ClosedRange<Int>] = [
        CeremonySecrets.fakeCredentialKey: 32...32, CeremonySecrets.challengeSealKey: 32...32, CeremonySecrets.openIDRequestSealKey: 32...32,
        CeremonySecrets.openIDSigningKey: 1_000...2_500,
    ]

    /// Secrets that seal only ceremonies in progress (``CeremonySecrets/challengeSealKey``). They do not move: with the
    /// key, a challenge sealed and used on the old server would still open on the new one, whose database has no record
    /// that it was spent. Without it, ceremonies in progress fail once, as stored ones always did (they are not
    /// carried), and the new database's server makes its own key. Exports before 2026-11-27 carried it: an import
    /// leaves it out.
    /// The OpenID Provider's request key is of the same kind: it seals only sign-in pages still open.
    static let ceremonySecrets: Set<String> = [CeremonySecrets.challengeSealKey, CeremonySecrets.openIDRequestSealKey]

    /// Whether `record` moves with the data: everything but ``ceremonySecrets``.
    public static func carries(_ record: TransferRecord) -> Bool {
        if case .secret(let name, _) = record { return !ceremonySecrets.contains(name) }
        return true
    }

    /// The last line of an export: how many records came before it, so that a file cut short (an export that failed
    /// half-way into a pipe) is refused rather than imported in part.
    public static func endLine(records: Int) -> String {
        JSONValue.object(["type": "end", "records": .number(Double(records))]).serialized()
    }

    /// The record count of an end line (``endLine(records:)``); nil for any other line.
    public static func end(_ text: String, line: Int) throws(LineError) -> Int? { try end(Fields(text, line: line)) }

    static func end(_ fields: Fields) throws(LineError) -> Int? {
        guard try fields.optionalString("type") == "end" else { return nil }
        try fields.only(["type", "records"], in: "the end line")
        return try fields.integer("records", in: 0...Int(Int32.max))
    }

    /// Reads one record line, with the defaults and checks described above.
    ///
    /// - Parameter newNames: apply the rules for names of new accounts (``UsernameRules/normalized(_:newAccount:)``), as
    ///   every import does; false only for a name the operator accepted under earlier releases' rules
    ///   (``ReadOptions/acceptOlderUsernames``), which still keeps the rules lookups use.
    public static func record(_ text: String, line: Int, now: Date, newNames: Bool = true) throws(LineError) -> TransferRecord {
        try record(Fields(text, line: line, now: now), newNames: newNames)
    }

    /// A line read once (``Fields``), as ``record(_:line:now:newNames:)`` reads it; the fields' `now` is the import's.
    static func record(_ fields: Fields, newNames: Bool) throws(LineError) -> TransferRecord {
        let now = fields.now ?? Date()
        let type = try fields.string("type")
        // A field of another name is refused, not ignored: a misspelt "signcount" would otherwise import a passkey
        // with a counter of 0, silently.
        if let known = knownFields[type] { try fields.only(known.union(["type"]), in: "a \(type) line") }
        switch type {
        case "user":
            let id = try fields.identifier("id")
            let userHandle = try fields.bytes("userHandle", count: 1...64)
            let rawName = try fields.optionalString("username")
            // The server's name for an account made without one (``GeneratedUsername``) comes with it: it is the one its
            // user handle gives, and new names may not take it.
            let generated = rawName.map { GeneratedUsername.isGenerated($0, userHandle: userHandle) } ?? false
            let username: String?
            do { username = try UsernameRules.normalized(rawName, newAccount: newNames && !generated) } catch {
                throw fields.invalid("username", error.message)
            }
            let isAnonymous = try fields.optionalBool("isAnonymous") ?? (username == nil || generated)
            // An anonymous account has no name of its own (the server's, or none: the store names it at its next start,
            // where it can tell which names are free), and a named one has its own: a name lost on the way would
            // otherwise make the account anonymous without a word.
            if isAnonymous, username != nil, !generated { throw fields.invalid("isAnonymous", "true for an account with a username of its own") }
            if !isAnonymous, username == nil { throw fields.invalid("username", "missing for an account that is not anonymous") }
            let displayName = try fields.optionalString("displayName")
            let disabledAt = try fields.optionalTime("disabledAt")
            let externalID = try fields.optionalString("externalUserId")
            if let externalID {
                guard externalID.count <= 256, externalID.utf8.count <= 1_024, ConnectService<InMemoryRepository>.isExactUserID(externalID) else {
                    throw fields.invalid(
                        "externalUserId",
                        "1 to 256 characters (at most 1024 UTF-8 bytes), no white space or invisible character at either end, no control or direction-changing characters")
                }
            }
            let user = UserRecord(
                id: id, userHandle: userHandle, username: username,
                displayName: DisplayName.sanitized(displayName, fallback: isAnonymous ? "Anonymous" : username ?? "Anonymous"),
                isAnonymous: isAnonymous, createdAt: try fields.optionalTime("createdAt") ?? now,
                lastSignInAt: try fields.optionalTime("lastSignInAt"), disabledAt: disabledAt,
                tokensRevokedAt: try fields.optionalTime("tokensRevokedAt") ?? disabledAt)
            return .user(user, externalID: externalID)
        case "passkey":
            return .credential(try credential(fields, owner: "userId", now: now))
        case "admin":
            return .admin(
                AdminRecord(
                    id: try fields.identifier("id"), userHandle: try fields.bytes("userHandle", count: 1...64),
                    name: DisplayName.sanitized(try fields.optionalString("name"), fallback: "Admin"),
                    createdAt: try fields.optionalTime("createdAt") ?? now))
        case "adminPasskey":
            return .adminCredential(try credential(fields, owner: "adminId", now: now))
        case "apiKey":
            return .apiKey(
                APIKeyRecord(
                    id: try fields.identifier("id"), name: try fields.string("name"), prefix: try fields.string("prefix"),
                    secretHash: try fields.bytes("secretHash", count: 32...32), createdAt: try fields.optionalTime("createdAt") ?? now,
                    lastUsedAt: try fields.optionalTime("lastUsedAt"), revokedAt: try fields.optionalTime("revokedAt")))
        case "signingKey":
            let pem = try fields.string("privateKeyPem")
            let algorithm = try fields.optionalString("algorithm") ?? "ES256"
            guard algorithm == "ES256" else { throw fields.invalid("algorithm", "this server signs with ES256 only") }
            guard (try? P256.Signing.PrivateKey(pemRepresentation: pem)) != nil else {
                throw fields.invalid("privateKeyPem", "not a P-256 private key in PEM")
            }
            return .signingKey(
                SigningKeyRecord(
                    id: try fields.identifier("id"), algorithm: algorithm, privateKeyPEM: pem, createdAt: try fields.optionalTime("createdAt") ?? now,
                    retiresAt: try fields.optionalTime("retiresAt", future: true)))
        case "secret":
            let name = try fields.string("name")
            guard let size = knownSecrets[name] else {
                throw fields.invalid("name", "\(DisplayEscaping.escape(String(name.prefix(40)))) is not a secret this server keeps (\(knownSecrets.keys.sorted().joined(separator: ", ")))")
            }
            return .secret(name: name, value: try fields.bytes("value", count: size))
        default:
            throw fields.invalid("type", "\(DisplayEscaping.escape(String(type.prefix(40)))) is not user, passkey, admin, adminPasskey, apiKey, signingKey or secret")
        }
    }

    /// A passkey line: `owner` names its account (`userId`) or admin (`adminId`).
    static func credential(_ fields: Fields, owner: String, now: Date) throws(LineError) -> CredentialRecordEntry {
        // WebAuthn L3 §7.1 step 18: a credential ID is at most 1023 bytes.
        let id = try fields.bytes("id", count: 1...1_023)
        let publicKey = try fields.bytes("publicKey", count: 1...16_384)
        let key: COSEKey
        do {
            key = try COSEKey(bytes: publicKey)
            // A key that parses but cannot check a signature (a point off its curve, a short RSA modulus, an unknown
            // algorithm) would never sign in. Legacy algorithms pass here: whether they may sign in is the server's setting.
            _ = try key.makeVerifier(allowLegacyAlgorithms: true)
        } catch {
            throw fields.invalid("publicKey", "not a usable COSE key as authenticators make them (\(error.reason))")
        }
        let algorithm = try fields.optionalInteger("algorithm", in: Int(Int32.min)...Int(Int32.max)) ?? key.algorithm.rawValue
        guard algorithm == key.algorithm.rawValue else {
            throw fields.invalid("algorithm", "\(algorithm) is not the key's own algorithm \(key.algorithm.rawValue)")
        }
        // Required: sign-in refuses a passkey whose backup eligibility differs from the stored one (WebAuthn L3 §6.1.3),
        // so a wrong default would lock out every synced passkey (iCloud Keychain, Google Password Manager).
        guard let backupEligible = try fields.optionalBool("backupEligible") else {
            throw fields.invalid("backupEligible", "missing: true for a synced passkey (the BE flag of its authenticator data), false for a device-bound one")
        }
        let backupState = try fields.optionalBool("backupState") ?? false
        // WebAuthn L3 §6.1.3: a credential that is backed up is backup eligible.
        guard backupEligible || !backupState else { throw fields.invalid("backupState", "true while backupEligible is false") }
        let aaguid = try fields.optionalString("aaguid")?.lowercased() ?? "00000000-0000-0000-0000-000000000000"
        guard let parsed = UUID(uuidString: aaguid), parsed.uuidString.lowercased() == aaguid else {
            throw fields.invalid("aaguid", "not a UUID such as fbfc3007-154e-4ecc-8c0b-6e020557d7bd")
        }
        let signCount = try fields.optionalInteger("signCount", in: 0...Int(UInt32.max)) ?? 0
        return CredentialRecordEntry(
            id: id, userID: try fields.identifier(owner), publicKey: publicKey, algorithm: algorithm, signCount: UInt32(clamping: signCount),
            uvInitialized: try fields.optionalBool("uvInitialized") ?? false, transports: try fields.optionalStrings("transports") ?? [],
            backupEligible: backupEligible, backupState: backupState, aaguid: aaguid,
            attestationFormat: try fields.optionalString("attestationFormat") ?? "none",
            attestationType: try fields.optionalString("attestationType") ?? "None",
            name: try fields.optionalString("name").map { DisplayName.sanitized($0, fallback: "Passkey") },
            createdAt: try fields.optionalTime("createdAt") ?? now, lastUsedAt: try fields.optionalTime("lastUsedAt"))
    }

    /// One line's object, read field by field; every error names the line and the field.
    struct Fields {
        let object: JSONObject
        let line: Int
        /// When set, times later than this (and an hour's leeway for clocks that differ) are refused: a revocation
        /// or a disable in the future would act on sign-ins that have not happened yet.
        let now: Date?

        init(_ text: String, line: Int, now: Date? = nil) throws(LineError) {
            self.line = line
            self.now = now
            let value: JSONValue
            do { value = try JSONValue.parse(text, maximumDepth: 4) } catch { throw LineError(line: line, reason: error.description) }
            guard let object = value.objectValue else { throw LineError(line: line, reason: "not a JSON object") }
            self.object = object
        }

        func invalid(_ name: String, _ reason: String) -> LineError { LineError(line: line, reason: "\"\(name)\": \(reason)") }

        /// Refuses a field not in `names` (the first one, in order).
        func only(_ names: Set<String>, in what: String) throws(LineError) {
            guard let unknown = object.members.first(where: { !names.contains($0.name) })?.name else { return }
            throw invalid(
                DisplayEscaping.escape(String(unknown.prefix(40))),
                "not a field of \(what) (a misspelling? the fields are in docs/deploy.md, \"Moving to another database\")")
        }

        /// The field's value; nil when it is absent or null.
        func value(_ name: String) -> JSONValue? {
            guard let value = object[name], !value.isNull else { return nil }
            return value
        }

        func optionalString(_ name: String) throws(LineError) -> String? {
            guard let value = value(name) else { return nil }
            guard let string = value.stringValue else { throw invalid(name, "a string was expected, not \(value.typeName)") }
            return string
        }

        func string(_ name: String) throws(LineError) -> String {
            guard let string = try optionalString(name), !string.isEmpty else { throw invalid(name, "missing") }
            return string
        }

        /// An id (of an account, admin or key): 1 to 128 ASCII letters, digits and `-._~@:+`, not only dots. Ids go
        /// into the dashboard's and the API's paths (`/users/{id}`), so they hold nothing a path would have to escape
        /// or that clients resolve (`..`).
        func identifier(_ name: String) throws(LineError) -> String {
            let text = try string(name)
            guard text.utf8.count <= 128, text.utf8.allSatisfy(Self.isIdentifierByte), text.utf8.contains(where: { $0 != UInt8(ascii: ".") }) else {
                throw invalid(name, "1 to 128 ASCII letters, digits and - . _ ~ @ : + (not only dots) were expected")
            }
            return text
        }

        static func isIdentifierByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: Array("-._~@:+".utf8).contains(byte)
            }
        }

        func optionalBool(_ name: String) throws(LineError) -> Bool? {
            guard let value = value(name) else { return nil }
            guard let bool = value.boolValue else { throw invalid(name, "true or false was expected, not \(value.typeName)") }
            return bool
        }

        func optionalInteger(_ name: String, in range: ClosedRange<Int>) throws(LineError) -> Int? {
            guard let value = value(name) else { return nil }
            guard let integer = value.intValue, range.contains(integer) else { throw invalid(name, "an integer from \(range.lowerBound) to \(range.upperBound) was expected") }
            return integer
        }

        func integer(_ name: String, in range: ClosedRange<Int>) throws(LineError) -> Int {
            guard let integer = try optionalInteger(name, in: range) else { throw invalid(name, "missing") }
            return integer
        }

        func optionalStrings(_ name: String) throws(LineError) -> [String]? {
            guard let value = value(name) else { return nil }
            guard let array = value.arrayValue else { throw invalid(name, "an array of strings was expected, not \(value.typeName)") }
            var strings: [String] = []
            for element in array {
                guard let string = element.stringValue else { throw invalid(name, "an array of strings was expected") }
                strings.append(string)
            }
            return strings
        }

        func bytes(_ name: String, count: ClosedRange<Int>) throws(LineError) -> [UInt8] {
            let text = try string(name)
            guard let bytes = Base64URL.decode(text) else { throw invalid(name, "not base64url") }
            guard count.contains(bytes.count) else {
                throw invalid(name, count.count == 1 ? "\(count.lowerBound) bytes were expected, not \(bytes.count)" : "\(count.lowerBound) to \(count.upperBound) bytes were expected, not \(bytes.count)")
            }
            return bytes
        }

        /// - Parameter future: the time may be later than now (a signing key's retirement).
        func optionalTime(_ name: String, future: Bool = false) throws(LineError) -> Date? {
            guard let text = try optionalString(name) else { return nil }
            guard let date = TransferFile.parseTime(text) else {
                throw invalid(name, "an ISO 8601 time such as 2026-11-21T10:00:00Z or 2026-11-21T10:00:00.123Z was expected")
            }
            if !future, let now, date > now.addingTimeInterval(3_600) { throw invalid(name, "\(text) is in the future") }
            return date
        }
    }
}
