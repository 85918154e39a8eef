import ArgumentParser
import Foundation
import PasskeyAttestation
import PasskeyRelyingParty
import PasskeyServer
import PasskeyStorage
import PasskeyWire

/// `passkey-server metadata`: the FIDO Metadata Service BLOB in force (docs/deploy.md, "Admitting only the
/// authenticators you trust"). Servers read it when they start.
struct MetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata", abstract: "Import and show the FIDO Metadata Service BLOB that gives authenticator models' attestation roots and statuses.",
        subcommands: [Import.self, Show.self])

    static func store(_ root: PasskeyServerCommand, mustExist: Bool) async throws -> (MetadataStore, any PasskeyRepository, ServerConfiguration) {
        let configuration = try root.metadataConfiguration()
        let verifier = try configuration.metadataVerifier()
        let repository = try await openStorage(root, mustExist: mustExist)
        let revocation = RevocationChecker(source: HTTPRevocationLists())
        return (MetadataStore(repository: repository, verifier: verifier, revocation: revocation), repository, configuration)
    }

    /// The BLOB in force with the store and settings it was read with; nil, after saying so, when none is.
    static func inForce(
        _ root: PasskeyServerCommand
    ) async throws -> (store: MetadataStore, configuration: ServerConfiguration, blob: MetadataBLOB, stored: StoredMetadataBLOB)? {
        let (store, _, configuration) = try await store(root, mustExist: true)
        let current: (blob: MetadataBLOB, stored: StoredMetadataBLOB)?
        do { current = try await store.current() } catch { throw CommandFailure("the stored metadata BLOB does not verify: \(error)") }
        guard let (blob, stored) = current else {
            say("no metadata BLOB is in force: import one with `passkey-server metadata import FILE`")
            return nil
        }
        return (store, configuration, blob, stored)
    }

    /// One line about a BLOB: its serial, when the next comes, how many models, and how many are reported compromised.
    static func summary(_ blob: MetadataBLOB, at time: Date) -> String {
        let compromised = blob.compromisedEntries(at: time).count
        let day = blob.nextUpdate.formatted(.iso8601.year().month().day())
        return "metadata BLOB no \(blob.number): \(blob.entries.count) authenticator models, \(compromised) with a compromise report, next update \(day)"
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a metadata BLOB (a file downloaded from https://mds3.fidoalliance.org/) and make it the one in force.",
            usage: databaseUsage("metadata import <file> [--metadata-root <pem>]"),
            discussion: databaseDiscussion(
                "The BLOB must chain to the metadata root (--metadata-root, default the FIDO Alliance's) with certificates valid now, carry a valid signature, and have a higher serial number than the BLOB in force; otherwise it is refused and the one in force stays. Running servers apply it at their next check (--metadata-refresh-seconds, default 300); passkeys of models it newly reports compromised are announced to webhooks (passkey.authenticator_compromised)."))
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The BLOB file: a JWS as the metadata service serves it.") var file: String

        func run() async throws {
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            if let size = attributes?[.size] as? Int, size > MetadataBLOBVerifier.maximumSize {
                throw CommandFailure(
                    "\(MetadataError(.tooLarge, "\(file) is larger than a metadata BLOB can be", expected: "at most \(MetadataBLOBVerifier.maximumSize) bytes", received: "\(size) bytes"))")
            }
            guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
            let (store, repository, configuration) = try await MetadataCommand.store(root, mustExist: false)
            let now = Date()
            let imported: MetadataStore.Imported
            do { imported = try await store.importBLOB(Array(data), now: now, refusingSignIn: configuration.signInRefusedStatuses) } catch {
                let inForce = (try? await repository.metadataBLOB()).flatMap { $0 }.map { "the BLOB in force stays no \($0.number)" } ?? "no BLOB is in force"
                throw CommandFailure("refused: \(error)\n\(inForce)")
            }
            let blob = imported.blob
            for warning in imported.revocationWarnings { note("warning: revocation not checked: \(warning)") }
            await recordCommand("import_metadata", "metadata BLOB no \(blob.number) imported", in: repository)
            say(MetadataCommand.summary(blob, at: now))
            if !imported.flagged.isEmpty {
                say("passkeys newly reported compromised: \(imported.flagged.count) (announced to webhooks as passkey.authenticator_compromised)")
            }
            if blob.nextUpdate < now {
                note("warning: its next update was due on \(blob.nextUpdate.formatted(.iso8601.year().month().day())): reports since are missing; download the current BLOB")
            }
            note("Running servers apply it within \(Int(configuration.metadataRefreshInterval)) seconds (--metadata-refresh-seconds).")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the metadata BLOB in force: serial number, models, compromise reports, next update.",
            usage: databaseUsage("metadata show"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand

        func run() async throws {
            guard let (store, configuration, blob, stored) = try await MetadataCommand.inForce(root) else { return }
            let now = Date()
            say(MetadataCommand.summary(blob, at: now))
            say("verified \(stored.verifiedAt.formatted(.iso8601))")
            if stored.nextUpdate < now { note("warning: its next update was due on \(stored.nextUpdate.formatted(.iso8601.year().month().day())): import a newer BLOB") }
            let compromised = blob.compromisedEntries(at: now)
            for entry in compromised {
                let name = entry.metadataStatement?.description ?? entry.aaguid ?? entry.attestationCertificateKeyIdentifiers.first ?? "?"
                let reports = entry.compromises(at: now).map { $0.status.rawValue }.joined(separator: ", ")
                say("  \(entry.aaguid ?? "-")  \(UsersCommand.visible(name))  \(reports)")
            }
            guard !compromised.isEmpty else { return }
            for line in try await MetadataCommand.flaggedPasskeys(blob, store: store, configuration: configuration, at: now) { say(line) }
        }
    }

    /// The passkeys of the models `blob` reports compromised, a line each, after a count: account, passkey ID, model,
    /// registration time, and whether its sign-ins are refused.
    static func flaggedPasskeys(_ blob: MetadataBLOB, store: MetadataStore, configuration: ServerConfiguration, at now: Date) async throws -> [String] {
        let models = Set(blob.compromisedEntries(at: now).compactMap { $0.aaguid?.lowercased() })
        // The statuses --refuse-sign-in-status names stop the passkeys signing in; the other kinds stop new registrations only.
        let refused = Set(blob.compromisedEntries(at: now, of: configuration.signInRefusedStatuses).compactMap { $0.aaguid?.lowercased() })
        let affected = try await store.passkeys(of: models)
        return ["passkeys of models reported compromised: \(affected.count)"]
            + affected.map { passkey, owner in
                let id = Base64URL.encode(passkey.id)
                let effect = refused.contains(passkey.aaguid.lowercased()) ? "refused at sign-in" : "signs in; new ones refused"
                return "  \(UsersCommand.visible(owner?.username ?? passkey.userID))  \(id.prefix(12))…  \(passkey.aaguid)  registered \(passkey.createdAt.formatted(.iso8601))  \(effect)"
            }
    }
}
