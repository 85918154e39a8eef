public import Foundation
public import PasskeyStorage
import PasskeyWire

/// Who made a change, and from where: what an audit entry says beside the change itself. Every way of changing an
/// account (the dashboard, the backend API, the app for its signed-in person, `passkey-server` on a shell) names itself
/// here, so one entry shape serves them all and the log answers "who did this" whichever way it came.
public struct AuditActor: Sendable, Hashable {
    /// How the entry's explanation ends: "by alice", "by API key …", "from the command line (…)"; nil for someone not
    /// yet known (an admin signing in).
    public let description: String?
    public var clientIP: String?
    public var userAgent: String?
    public var origin: String?
    public var requestID: String?

    public init(description: String?, clientIP: String? = nil, userAgent: String? = nil, origin: String? = nil, requestID: String? = nil) {
        self.description = description
        self.clientIP = clientIP
        self.userAgent = userAgent
        self.origin = origin
        self.requestID = requestID
    }

    /// A dashboard admin, by the name they set up with.
    public static func admin(named name: String) -> AuditActor { AuditActor(description: "by " + name) }

    /// The app's backend, by the API key it authenticated with: its name and the prefix the dashboard lists (never the
    /// secret).
    public static func apiKey(_ key: APIKeyRecord) -> AuditActor { AuditActor(description: "by API key \(key.name) (\(key.prefix)…)") }

    /// The account's own person, through the app with a connect token the app's backend minted for them.
    public static var accountHolder: AuditActor { AuditActor(description: "by the account holder, in the app (connect token)") }

    /// An operator running `passkey-server` on `host`.
    public static func commandLine(host: String) -> AuditActor {
        AuditActor(description: "from the command line (passkey-server on \(host))", userAgent: "passkey-server command line")
    }

    /// The audit entry of `action` (`admin.<action>`): what was done (`detail`), to which account and passkey, by whom.
    public func entry(
        _ action: String, detail: String?, user: UserRecord? = nil, credentialID: [UInt8]? = nil, rpID: String? = nil, time: Date
    ) -> EventRecord {
        EventRecord(
            time: time, kind: "admin." + action, result: .success,
            explanation: [detail, description].compactMap { $0 }.joined(separator: " — "), userID: user?.id, username: user?.username,
            credentialIDPrefix: credentialID.map(Base64URL.encode),  // cut to its prefix by EventRecord
            origin: origin, rpID: rpID, clientIP: clientIP, userAgent: userAgent, requestID: requestID)
    }
}
