import Foundation
import Logging
import PasskeyCore
import PasskeyAttestation
import PasskeyRelyingParty
import PasskeyStorage

/// The metadata BLOB in force gives the attestation roots of every model it lists and their compromise reports (issue
/// 48): applied at start-up, and again whenever a newer BLOB is stored (``MetadataRefresh``).
enum MetadataLoading {
    /// `configuration` with the stored BLOB applied, and the serial number of that BLOB. A BLOB that no longer verifies
    /// (the metadata root was changed, the row was edited) is left out with a warning: the server starts as without one.
    static func load(
        into configuration: ServerConfiguration, from repository: some MetadataRepository & TransferRepository & UserRepository, logger: Logger,
        now: @Sendable () -> Date = Date.init
    ) async throws -> (configuration: ServerConfiguration, catalog: AuthenticatorCatalog, number: Int?) {
        let current: (blob: MetadataBLOB, stored: StoredMetadataBLOB)?
        do {
            current = try await MetadataStore(repository: repository, verifier: try configuration.metadataVerifier()).current()
        } catch MetadataStore.Failure.storage(let error) {
            // Starting without the BLOB would admit the models it reports compromised: the start fails instead.
            throw error
        } catch {
            logger.warning("metadata", metadata: ["refused": "\(error)", "effect": "attestation is checked without the metadata BLOB"])
            return (configuration, .community, nil)
        }
        guard let blob = current?.blob else {
            if configuration.admitAuthenticators != .any {
                logger.warning(
                    "metadata",
                    metadata: ["missing": "no BLOB is in force", "effect": "--admit-authenticators \(configuration.admitAuthenticators) admits no registration until one is imported"])
            }
            return (configuration, .community, nil)
        }
        let time = now()
        let loaded = apply(blob, to: configuration, at: time)
        log(blob, loaded, at: time, logger: logger)
        return (loaded, AuthenticatorCatalog(blob, at: time, signInRefused: configuration.signInRefusedStatuses), blob.number)
    }

    /// `configuration` (as given, without any BLOB) with `blob`'s model roots among its trust anchors and its
    /// compromise reports in force at `time`.
    static func apply(_ blob: MetadataBLOB, to configuration: ServerConfiguration, at time: Date) -> ServerConfiguration {
        var loaded = configuration
        loaded.attestationTrustAnchors = configuration.attestationTrustAnchors.replacing(models: AuthenticatorModelRoots(blob))
        loaded.compromisedAAGUIDs = compromised(blob, at: time)
        loaded.keyCompromisedAAGUIDs = compromised(blob, at: time, of: configuration.refuseSignInStatuses)
        loaded.admittedAAGUIDs = configuration.admitAuthenticators.admitted(by: blob, at: time)
        loaded.modelStatements = blob.modelStatementRules
        return loaded
    }

    /// One line for the BLOB in force, and a warning when its next update is overdue.
    static func log(_ blob: MetadataBLOB, _ loaded: ServerConfiguration, at time: Date, logger: Logger) {
        let nextUpdate = blob.nextUpdate.formatted(.iso8601.year().month().day())
        logger.notice(
            "metadata",
            metadata: [
                "no": "\(blob.number)", "models": "\(blob.entries.count)", "compromised": "\(loaded.compromisedAAGUIDs.count)",
                "nextUpdate": "\(nextUpdate)",
            ])
        if blob.nextUpdate < time {
            logger.warning("metadata", metadata: ["stale": "its next update was due on \(nextUpdate)", "effect": "import a newer BLOB: reports since are missing"])
        }
    }

    /// The FIDO2 models with a compromise report in force at `time` (U2F models, named by key identifiers, are not
    /// covered: their passkeys carry the zero AAGUID).
    static func compromised(
        _ blob: MetadataBLOB, at time: Date, of kinds: Set<AuthenticatorStatus> = AuthenticatorStatus.compromises
    ) -> Set<AAGUID> {
        Set(blob.compromisedEntries(at: time, of: kinds).compactMap { $0.aaguid.flatMap { AAGUID($0) } })
    }
}
