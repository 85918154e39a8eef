public import Foundation
public import PasskeyAttestation
public import PasskeyStorage

/// The `passkey.authenticator_compromised` webhook message of one passkey: its model's AAGUID, the statuses reported,
/// and whether the server refuses its sign-ins. Kept in the message's `detail` as `<aaguid> <STATUS,…> refused|flagged`,
/// so the outbox stays one table of facts.
public struct CompromiseAnnouncement: Sendable, Equatable {
    public var aaguid: String
    public var statuses: [AuthenticatorStatus]
    public var signInRefused: Bool

    public init(aaguid: String, statuses: [AuthenticatorStatus], signInRefused: Bool) {
        self.aaguid = aaguid
        self.statuses = statuses
        self.signInRefused = signInRefused
    }

    /// The message for `passkey`, owned by `owner`, written at `time`.
    public func message(passkey: CredentialRecordEntry, owner: UserRecord?, at time: Date) -> WebhookMessageRecord {
        WebhookMessageRecord(
            id: WebhookMessageRecord.newID(), type: WebhookEventType.passkeyAuthenticatorCompromised.rawValue, createdAt: time,
            userID: passkey.userID, username: owner?.username, displayName: owner?.displayName, credentialID: passkey.id,
            credentialName: passkey.name, detail: detail)
    }

    var detail: String { "\(aaguid) \(statuses.map(\.rawValue).joined(separator: ",")) \(signInRefused ? "refused" : "flagged")" }

    /// A message's `detail` read back; nil when it is not one of these.
    public init?(detail: String) {
        let parts = detail.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "refused" || parts[2] == "flagged" else { return nil }
        aaguid = String(parts[0])
        statuses = parts[1].split(separator: ",").map { AuthenticatorStatus(rawValue: String($0)) }
        signInRefused = parts[2] == "refused"
    }
}
