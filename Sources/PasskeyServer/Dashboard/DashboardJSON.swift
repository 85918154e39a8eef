import Foundation
import PasskeyAuthenticatorNames
import PasskeyCore
import PasskeyStorage
import PasskeyWire

/// JSON shapes of the dashboard's data endpoints.
enum DashboardJSON {
    static func time(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        return .string(ISO8601DateFormatter().string(from: date))
    }

    static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// An event as the log shows it. What a request brought (an origin from its client data or headers, a user agent,
    /// a forwarded address, the values an origin check compared) is escaped as in the server's own log lines
    /// (`DisplayEscaping`): a direction override or a line break in a user agent must not reorder or disguise the
    /// text an admin reads around it.
    static func event(_ event: EventRecord) -> JSONValue {
        func shown(_ value: String?) -> JSONValue { value.map { .string(DisplayEscaping.escape($0, limit: 512)) } ?? .null }
        return .object([
            "id": .number(Double(event.id)), "time": time(event.time), "kind": .string(event.kind), "result": .string(event.result.rawValue),
            "code": text(event.code), "explanation": shown(event.explanation), "userId": text(event.userID), "username": shown(event.username),
            "credentialIdPrefix": text(event.credentialIDPrefix), "origin": shown(event.origin), "rpId": text(event.rpID),
            "expected": shown(event.expected), "received": shown(event.received), "clientIp": shown(event.clientIP),
            "userAgent": shown(event.userAgent), "requestId": text(event.requestID),
        ])
    }

    static func user(_ user: UserRecord, passkeys: Int) -> JSONValue {
        .object([
            "id": .string(user.id), "username": .string(user.entityName), "displayName": .string(user.displayName),
            "isAnonymous": .bool(user.isAnonymous), "createdAt": time(user.createdAt), "lastSignInAt": time(user.lastSignInAt),
            "disabled": .bool(user.isDisabled), "disabledAt": time(user.disabledAt), "passkeyCount": .number(Double(passkeys)),
        ])
    }

    /// A passkey as the user page shows it. The full credential ID is here (admins act on it); events never hold it.
    static func passkey(_ credential: CredentialRecordEntry, names: AuthenticatorNames) -> JSONValue {
        .object([
            "id": .string(Base64URL.encode(credential.id)), "name": text(credential.name),
            "provider": text(names.name(for: credential.aaguid)), "aaguid": .string(credential.aaguid),
            "synced": .bool(credential.backupEligible), "backedUp": .bool(credential.backupState),
            "attestationFormat": .string(credential.attestationFormat), "algorithm": .string(algorithmName(credential.algorithm)),
            "transports": .array(credential.transports.map(JSONValue.string)), "signCount": .number(Double(credential.signCount)),
            "createdAt": time(credential.createdAt), "lastUsedAt": time(credential.lastUsedAt),
        ])
    }

    static func algorithmName(_ value: Int) -> String {
        COSEAlgorithmIdentifier(rawValue: value).name ?? "COSE \(value)"
    }

    static func hours(_ counts: [EventHourCount]) -> JSONValue {
        .array(counts.map { count in
            .object([
                "hour": time(count.hour), "registrations": .number(Double(count.registrations)), "signIns": .number(Double(count.signIns)),
                "failures": .number(Double(count.failures)),
            ])
        })
    }
}
