import Foundation
import PasskeyAPI
import PasskeyCore
import PasskeyStorage
import PasskeyWire

/// The dashboard's data answers made of stored records.
enum DashboardJSON {
    static func time(_ date: Date?) -> String? { date.map { ISO8601DateFormatter().string(from: $0) } }

    /// An event as the log shows it. What a request brought (an origin from its client data or headers, a user agent,
    /// a forwarded address, the values an origin check compared) is escaped as in the server's own log lines
    /// (`DisplayEscaping`): a direction override or a line break in a user agent must not reorder or disguise the
    /// text an admin reads around it.
    static func event(_ event: EventRecord) -> EventEntry {
        func shown(_ value: String?) -> String? { value.map { DisplayEscaping.escape($0, limit: 512) } }
        return EventEntry(
            id: Int(event.id), time: time(event.time), kind: event.kind, result: event.result.rawValue, code: event.code,
            explanation: shown(event.explanation), userId: event.userID, username: shown(event.username),
            credentialIdPrefix: event.credentialIDPrefix, origin: shown(event.origin), rpId: event.rpID, expected: shown(event.expected),
            received: shown(event.received), clientIp: shown(event.clientIP), userAgent: shown(event.userAgent), requestId: event.requestID)
    }

    static func user(_ user: UserRecord, passkeys: Int) -> UserSummary {
        UserSummary(
            id: user.id, username: user.entityName, displayName: user.displayName, isAnonymous: user.isAnonymous, createdAt: time(user.createdAt),
            lastSignInAt: time(user.lastSignInAt), disabled: user.isDisabled, disabledAt: time(user.disabledAt), passkeyCount: passkeys)
    }

    /// A passkey as the user page shows it. The full credential ID is here (admins act on it); events never hold it.
    static func passkey(_ credential: CredentialRecordEntry, catalog: AuthenticatorCatalog) -> AdminPasskeyEntry {
        AdminPasskeyEntry(
            id: Base64URL.encode(credential.id), name: credential.name, provider: catalog.name(for: credential.aaguid), aaguid: credential.aaguid,
            synced: credential.backupEligible, backedUp: credential.backupState, attestationFormat: credential.attestationFormat,
            algorithm: algorithmName(credential.algorithm), transports: credential.transports, signCount: Int(credential.signCount),
            createdAt: time(credential.createdAt), lastUsedAt: time(credential.lastUsedAt), icon: catalog.icon(for: credential.aaguid),
            compromise: catalog.compromise(for: credential.aaguid))
    }

    static func algorithmName(_ value: Int) -> String {
        COSEAlgorithmIdentifier(rawValue: value).name ?? "COSE \(value)"
    }

    static func hours(_ counts: [EventHourCount]) -> [StatsAnswer.HourCount] {
        counts.map { StatsAnswer.HourCount(hour: time($0.hour), registrations: $0.registrations, signIns: $0.signIns, failures: $0.failures) }
    }
}
