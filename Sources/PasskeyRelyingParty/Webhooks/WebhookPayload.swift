public import Foundation
public import PasskeyStorage
public import PasskeyWire

/// The body of a webhook message, in the Standard Webhooks shape: `{"type", "timestamp", "data"}`.
///
/// `data` names the account (`userId`, our id; `username`, `displayName`; `externalUserId`, the app's own id, for
/// accounts linked with connect) and, for a passkey's events, the passkey (`credentialId`, base64url as in WebAuthn;
/// `passkeyName`). What a type adds:
/// - `user.updated`: `previousUsername`;
/// - `passkey.created`: `aaguid`; `passkey.renamed`: `previousName`;
/// - `signin.counter_regressed`: `outcome`, `refused` or `accepted` (`--allow-counter-regression`);
/// - `recovery.link_used`: `passkeysReplaced`, whether the account's other passkeys were deleted;
/// - `passkey.authenticator_compromised`: `aaguid`, `statuses` (the FIDO Metadata Service's, `USER_KEY_PHYSICAL_COMPROMISE`,
///   …), `signInRefused`, whether the server refuses the passkey's sign-ins from now on.
///
/// Never a secret, a token, a key or a challenge.
public enum WebhookPayload {
    public static func body(of message: WebhookMessageRecord) -> [UInt8] { json(of: message).serializedBytes }

    public static func json(of message: WebhookMessageRecord) -> JSONValue {
        var data = JSONObject()
        func add(_ key: String, _ value: String?) { if let value { data[key] = .string(value) } }
        add("userId", message.userID)
        add("username", message.username)
        add("displayName", message.displayName)
        add("externalUserId", message.externalUserID)
        add("credentialId", message.credentialID.map(Base64URL.encode))
        if message.credentialID != nil { add("passkeyName", message.credentialName) }
        switch WebhookEventType(rawValue: message.type) {
        case .userUpdated: add("previousUsername", message.detail)
        case .passkeyCreated: add("aaguid", message.detail)
        case .passkeyRenamed: add("previousName", message.detail)
        case .signInCounterRegressed: add("outcome", message.detail)
        case .recoveryLinkUsed: data["passkeysReplaced"] = .bool(message.detail == "replaced")
        case .passkeyAuthenticatorCompromised:
            if let announcement = message.detail.flatMap(CompromiseAnnouncement.init(detail:)) {
                data["aaguid"] = .string(announcement.aaguid)
                data["statuses"] = .array(announcement.statuses.map { .string($0.rawValue) })
                data["signInRefused"] = .bool(announcement.signInRefused)
            }
        default: break
        }
        return ["type": .string(message.type), "timestamp": .string(timestamp(message.createdAt)), "data": .object(data)]
    }

    /// RFC 3339 in UTC with milliseconds: the payload's `timestamp`, and the times the API shows beside it.
    public static func timestamp(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }
}
