import Foundation
import Logging
import PasskeyAttestation
import PasskeyRelyingParty
import PasskeyStorage
import ServiceLifecycle

/// Keeps the metadata BLOB in force current while the server runs:
/// - with `--metadata-url`, downloads the BLOB at each start, then daily and when the stored one's
///   `nextUpdate` comes, and stores it when it is newer (announcing newly compromised passkeys to webhooks, once
///   across instances: ``PasskeyRelyingParty/MetadataStore``); an hour later again after a failure;
/// - every ``ServerConfiguration/metadataRefreshInterval``, reads the stored serial number, and when another instance
///   or `passkey-server metadata import` stored a newer BLOB, applies it: ceremonies use its roots and reports from
///   their next step, without a restart.
struct MetadataRefresh<Repository: PasskeyRepository>: Service {
    /// The configuration without any BLOB applied.
    let base: ServerConfiguration
    let repository: Repository
    let relyingParty: RelyingPartyInForce
    let catalog: InForce<AuthenticatorCatalog>
    /// The serial of the BLOB applied at start.
    let loaded: Int?
    let logger: Logger
    var now: @Sendable () -> Date = Date.init
    /// The revocation lists of BLOBs' chains, kept between downloads.
    let revocationLists = HTTPRevocationLists()

    func run() async throws {
        var inForce = loaded
        var nextDownload = now()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let url = base.metadataURL, now() >= nextDownload {
                nextDownload = await download(url)
            }
            inForce = await applyIfNewer(than: inForce)
            let interval = base.metadataRefreshInterval
            do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) } } catch { return }
        }
    }

    /// Downloads and stores the BLOB; returns when to download again.
    func download(_ url: String) async -> Date {
        let time = now()
        let bytes: [UInt8]
        do { bytes = try await MetadataDownload.fetch(url) } catch {
            logger.warning("metadata", metadata: ["download": "\(error)", "effect": "the BLOB in force stays; tried again in an hour"])
            return time.addingTimeInterval(3600)
        }
        let store: MetadataStore
        do {
            store = MetadataStore(repository: repository, verifier: try base.metadataVerifier(), revocation: RevocationChecker(source: revocationLists))
        } catch {
            logger.error("metadata", metadata: ["root": "\(error)"])
            return time.addingTimeInterval(3600)
        }
        do {
            let imported = try await store.importBLOB(bytes, now: time, refusingSignIn: base.signInRefusedStatuses)
            logger.notice("metadata", metadata: ["stored": "no \(imported.blob.number) from \(url)", "flagged": "\(imported.flagged.count)"])
            for warning in imported.revocationWarnings {
                logger.warning("metadata", metadata: ["revocation": "\(warning)", "effect": "stored: the chain is valid, its revocation could not be checked"])
            }
            return Self.nextDownload(after: time, nextUpdate: imported.blob.nextUpdate)
        } catch .metadata(let error) where error.code == .rolledBack {
            // Not newer than the one in force (this instance or another stored it already): the usual case.
            let stored = try? await repository.metadataBLOB()
            return Self.nextDownload(after: time, nextUpdate: stored?.nextUpdate ?? time)
        } catch {
            logger.warning("metadata", metadata: ["refused": "\(error)", "from": "\(url)", "effect": "the BLOB in force stays; tried again in an hour"])
            return time.addingTimeInterval(3600)
        }
    }

    /// Daily, or at the BLOB's `nextUpdate` when that comes first (FIDO may publish before it); never sooner than an hour.
    static func nextDownload(after time: Date, nextUpdate: Date) -> Date {
        max(time.addingTimeInterval(3600), min(time.addingTimeInterval(86_400), nextUpdate))
    }

    /// Applies the stored BLOB when its serial is not `inForce`; returns the serial in force after.
    func applyIfNewer(than inForce: Int?) async -> Int? {
        guard let stored = try? await repository.metadataBLOBNumber(), stored != inForce else { return inForce }
        do {
            let verifier = try base.metadataVerifier()
            guard let current = try await MetadataStore(repository: repository, verifier: verifier).current() else { return inForce }
            let time = now()
            let applied = MetadataLoading.apply(current.blob, to: base, at: time)
            relyingParty.replace(with: makeRelyingParty(applied))
            catalog.replace(with: AuthenticatorCatalog(current.blob, at: time, signInRefused: base.signInRefusedStatuses))
            MetadataLoading.log(current.blob, applied, at: time, logger: logger)
            return current.blob.number
        } catch {
            // Tried again at the next check; the BLOB applied before stays.
            logger.warning("metadata", metadata: ["refused": "\(error)", "effect": "the BLOB applied before stays"])
            return inForce
        }
    }
}
