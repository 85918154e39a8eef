public import Foundation
public import PasskeyAPI
public import PasskeyAttestation
public import PasskeyAuthenticatorNames

/// What the server tells of a passkey's authenticator model: its name and icon from the verified metadata BLOB in force,
/// else the name from the bundled community list (synced-passkey providers, which FIDO's metadata does not list), and
/// the compromise the BLOB reports. Replaced with each new BLOB (``MetadataRefresh``).
public struct AuthenticatorCatalog: Sendable {
    struct Model: Sendable {
        var name: String?
        var icon: String?
        var compromise: AuthenticatorCompromiseJSON?
    }

    /// By lower-case AAGUID.
    let models: [String: Model]
    let names: AuthenticatorNames

    /// The bundled names only: no BLOB is in force.
    public static let community = AuthenticatorCatalog(models: [:], names: .bundled)

    init(models: [String: Model], names: AuthenticatorNames) {
        self.models = models
        self.names = names
    }

    /// `blob`'s FIDO2 models with their statements' names and icons and the compromise reports in force at `time`;
    /// `signInRefused`: the statuses whose passkeys the server refuses at sign-in.
    public init(_ blob: MetadataBLOB, at time: Date, signInRefused: Set<AuthenticatorStatus>, names: AuthenticatorNames = .bundled) {
        var models: [String: Model] = [:]
        for entry in blob.entries {
            guard let aaguid = entry.aaguid?.lowercased() else { continue }
            let statuses = entry.compromises(at: time).map(\.status)
            models[aaguid] = Model(
                name: entry.metadataStatement?.description, icon: entry.metadataStatement?.icon,
                compromise: statuses.isEmpty
                    ? nil : AuthenticatorCompromiseJSON(statuses: statuses.map(\.rawValue), signInRefused: statuses.contains(where: signInRefused.contains)))
        }
        self.init(models: models, names: names)
    }

    /// The models (lower-case AAGUIDs) the BLOB reports compromised.
    public var compromisedModels: Set<String> { Set(models.filter { $0.value.compromise != nil }.keys) }

    /// The model's name: the metadata statement's, else the community list's.
    public func name(for aaguid: String) -> String? { models[aaguid.lowercased()]?.name ?? names.name(for: aaguid) }

    /// The model's icon from its metadata statement (a `data:` URL).
    public func icon(for aaguid: String) -> String? { models[aaguid.lowercased()]?.icon }

    /// What the BLOB reports of the model, when it reports it compromised.
    public func compromise(for aaguid: String) -> AuthenticatorCompromiseJSON? { models[aaguid.lowercased()]?.compromise }
}
