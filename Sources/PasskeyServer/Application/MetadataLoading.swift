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
    ) async -> ServerConfiguration {
        let blob: MetadataBLOB?
        do {
            blob = try await MetadataStore(repository: repository, verifier: try configuration.metadataVerifier()).current()
        } catch {
            logger.warning("metadata", metadata: ["refused": "\(error)", "effect": "attestation is checked without the metadata BLOB"])
            return configuration
        }
        guard let blob else { return configuration }
        var loaded = configuration
        loaded.attestationTrustAnchors = configuration.attestationTrustAnchors.replacing(models: AuthenticatorModelRoots(blob))
        loaded.compromisedAAGUIDs = compromised(blob, at: now())
        logger.notice(
            "metadata",
            metadata: [
                "no": "\(blob.number)", "models": "\(blob.entries.count)", "compromised": "\(loaded.compromisedAAGUIDs.count)",
                "nextUpdate": "\(blob.nextUpdate.formatted(.iso8601.year().month().day()))",
            ])
        return loaded
    }

    /// The FIDO2 models with a compromise report in force at `time` (U2F models, named by key identifiers, are not
    /// covered: their passkeys carry the zero AAGUID).
    static func compromised(_ blob: MetadataBLOB, at time: Date) -> Set<AAGUID> {
        Set(blob.entries.filter { !$0.compromises(at: time).isEmpty }.compactMap { $0.aaguid.flatMap { AAGUID($0) } })
    }
}
