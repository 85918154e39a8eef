import Foundation
import Logging
import PasskeyCore
import PasskeyAttestation
import PasskeyRelyingParty
import PasskeyStorage

/// At start-up, the metadata BLOB in force gives the attestation roots of every model it lists (issue 48).
enum MetadataLoading {
    /// `configuration` with the stored BLOB's model roots among its trust anchors. A BLOB that no longer verifies (the
    /// metadata root was changed, the row was edited) is left out with a warning: the server starts as without one.
    static func load(
        into configuration: ServerConfiguration, from repository: some MetadataRepository, logger: Logger, now: @Sendable () -> Date = Date.init
    ) async throws -> ServerConfiguration {
        let blob: MetadataBLOB?
        do {
            blob = try await MetadataStore(repository: repository, verifier: try configuration.metadataVerifier()).current()?.blob
        } catch MetadataStore.Failure.storage(let error) {
            // Starting without the BLOB would admit the models it reports compromised: the start fails instead.
            throw error
        } catch {
            logger.warning("metadata", metadata: ["refused": "\(error)", "effect": "attestation is checked without the metadata BLOB"])
            return configuration
        }
        guard let blob else { return configuration }
        let time = now()
        var loaded = configuration
        loaded.attestationTrustAnchors = configuration.attestationTrustAnchors.replacing(models: AuthenticatorModelRoots(blob))
        loaded.compromisedAAGUIDs = compromised(blob, at: time)
        loaded.keyCompromisedAAGUIDs = compromised(blob, at: time, of: AuthenticatorStatus.keyCompromises)
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
        return loaded
    }

    /// The FIDO2 models with a compromise report in force at `time` (U2F models, named by key identifiers, are not
    /// covered: their passkeys carry the zero AAGUID).
    static func compromised(
        _ blob: MetadataBLOB, at time: Date, of kinds: Set<AuthenticatorStatus> = AuthenticatorStatus.compromises
    ) -> Set<AAGUID> {
        Set(blob.compromisedEntries(at: time, of: kinds).compactMap { $0.aaguid.flatMap { AAGUID($0) } })
    }
}
