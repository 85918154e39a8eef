import Foundation
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The connect API's answers made of the library's values: one place that knows both.
extension PasskeyEntry {
    /// A stored passkey as its owner and the app's backend see it: its name (else its provider's, else "Passkey"), the
    /// provider known by its AAGUID, and whether it syncs.
    init(_ credential: CredentialRecordEntry, catalog: AuthenticatorCatalog) {
        let provider = catalog.name(for: credential.aaguid)
        let formatter = ISO8601DateFormatter()
        self.init(
            id: Base64URL.encode(credential.id), name: credential.name ?? provider ?? "Passkey", provider: provider, aaguid: credential.aaguid,
            createdAt: formatter.string(from: credential.createdAt), lastUsedAt: credential.lastUsedAt.map(formatter.string(from:)),
            synced: credential.backupState, backupEligible: credential.backupEligible, deviceBound: !credential.backupEligible,
            transports: credential.transports, algorithm: credential.algorithm, icon: catalog.icon(for: credential.aaguid),
            compromise: catalog.compromise(for: credential.aaguid))
    }
}

extension ConnectDecision {
    init(_ decision: RolloutPolicy.Decision) { self.init(step: decision.step, reason: decision.reason) }
}

extension PasskeyListAnswer {
    /// With the RP ID and the account as its passkeys carry it, an SDK tells the device's passkey manager which passkeys
    /// the account still has and its current names (WebAuthn L3 §5.1.10 signals).
    init<Repository: PasskeyRepository>(_ list: PasskeyList, ceremonies: CeremonyService<Repository>, catalog: AuthenticatorCatalog) {
        self.init(
            passkeys: list.credentials.map { PasskeyEntry($0, catalog: catalog) }, rpId: ceremonies.configuration.rpID, user: ceremonies.userEntity(for: list.user),
            append: list.append.map(ConnectDecision.init))
    }
}

extension AccountStateAnswer {
    /// The backend's view of an account's state, so it can store the state the server now enforces (and show when the
    /// account was disabled).
    init(_ user: UserRecord) {
        self.init(
            userId: user.id, username: user.entityName, disabled: user.isDisabled,
            disabledAt: user.disabledAt.map { ISO8601DateFormatter().string(from: $0) })
    }
}

extension SignedPasskeyDataAnswer {
    init(_ claims: SignedPasskeyClaims) {
        self.init(
            userId: claims.sub, externalUserId: claims.externalUserID, username: claims.username, credentialId: claims.credentialID,
            ceremony: claims.ceremony, amr: claims.amr, counterRegressed: claims.counterRegressed == true)
    }
}

extension ClientReport {
    /// The device the app described; none described is a report of nothing.
    init(_ report: ClientReportJSON?) {
        self.init(
            platform: report?.platform, osVersion: report?.osVersion, platformAuthenticator: report?.platformAuthenticator ?? false,
            conditionalMediation: report?.conditionalMediation ?? false, conditionalCreate: report?.conditionalCreate ?? false)
    }
}
