import ArgumentParser
import Foundation
import PasskeyRelyingParty
import PasskeyServer
import PasskeyStorage
import Synchronization

/// `passkey-server export`: the database's lasting records as a JSON Lines file (``TransferFile``), to move a
/// deployment to another database (SQLite to PostgreSQL when one machine is not enough) or keep a copy.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the accounts and passkeys (and, when asked, admins, API keys and keys) to a file, to move them to another database.",
        usage: databaseUsage("export [--output <file>] [--include-secrets] [--rp-id <rp-id>]"),
        discussion: databaseDiscussion(
            """
            The file is JSON Lines, read by passkey-server import (docs/deploy.md, "Moving to another database"). \
            The copy is one consistent snapshot, also while servers keep serving. Ceremonies in progress, sessions, \
            connect tokens and the event log are not copied.

            Example, SQLite to PostgreSQL:
              passkey-server export --include-secrets --output passkeys.jsonl
              passkey-server import passkeys.jsonl --database postgres://…
            """))

    @ParentCommand var server: PasskeyServerCommand
    @Option(name: .shortAndLong, help: "The file to write: created with mode 0600, never overwritten (default, or -: standard output).")
    var output: String?
    @Flag(
        help: """
            Also write what grants power over the server: admins and their passkeys, API keys, the keys that sign \
            signedPasskeyData and the server's secrets, so that the dashboard, backends and tokens work on unchanged after \
            the move (import --include-secrets takes them). The file is then as secret as the database.
            """)
    var includeSecrets = false

    func run() async throws {
        let path = output == "-" ? nil : output
        if includeSecrets, path == nil, isatty(STDOUT_FILENO) == 1 {
            throw ValidationError("--include-secrets writes private keys: give a file with --output, or send standard output to a pipe or a file")
        }
        // The RP ID the passkeys were made for, when this command knows it: a default here says nothing of the server's.
        let rpID = try server.configuredRPID()
        let repository = try await openStorage(server, mustExist: true)
        let sink = try LineSink(path: path)
        let counts = Mutex(TransferCounts())
        do {
            try sink.write(TransferFile.headerLine(.init(rpID: rpID, exportedAt: Date(), includesSecrets: includeSecrets)))
            try await repository.exportRecords(includingSecrets: includeSecrets) { record in
                guard TransferFile.carries(record) else { return }
                try sink.write(TransferFile.line(record))
                counts.withLock { $0.add(record) }
            }
            // Last, so that a file without it is known to be cut short.
            try sink.write(TransferFile.endLine(records: counts.withLock { $0.total }))
            try sink.finish()
        } catch {
            sink.abandon()
            throw CommandFailure(path == nil ? "the export failed, and its output has no end line: \(error)" : "nothing was exported: \(error)")
        }
        let summary = counts.withLock { $0.summary }
        let secrets: String = includeSecrets ? ", signing keys and secrets included" : ""
        await recordCommand("export", "exported " + summary + secrets, in: repository)
        note("exported \(summary)\(path.map { " to \($0)" } ?? "")")
        if rpID == nil {
            note("the file does not say the RP ID its passkeys were made for (no --rp-id, PASSKEY_RP_ID or settings file here): import checks none")
        }
        if !includeSecrets {
            note("admins, API keys, signing keys, server secrets and accounts' links to app user ids were left out: the new database's server makes its own signing key, and needs its own admins and API keys (see --include-secrets)")
        }
    }
}

/// `passkey-server import`: writes a ``TransferFile`` into the server's database, all of it or nothing.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add the accounts and passkeys of an export file (or of another server's data) to the database.",
        usage: databaseUsage("import <file> [--dry-run] [--ignore-rp-id] [--include-secrets] [--accept-older-usernames] [--rp-id <rp-id>]"),
        discussion: databaseDiscussion(
            """
            Every line is checked first, and the import is one transaction: on any problem (a bad line, an account or \
            passkey the database has already, a username another account holds) nothing is written, and each problem is \
            named with its line. Nothing stored is ever changed or replaced. The file's format, and how to make one from \
            another server's data, are in docs/deploy.md ("Moving to another database").
            """))

    @ParentCommand var server: PasskeyServerCommand
    @Argument(help: "The file to read; - for standard input.") var file: String
    @Flag(help: "Check the file, and its conflicts with the database in a transaction rolled back; write nothing.") var dryRun = false
    @Flag(help: "Import even when the file says its passkeys were made for another RP ID than this server's.") var ignoreRpId = false
    @Flag(
        help: """
            Also take the records that grant power over the server (admins and their passkeys, API keys, signing keys, \
            secrets), from a file made with export --include-secrets. Without it such a file is refused.
            """)
    var includeSecrets = false
    @Flag(
        help: """
            Import usernames that earlier releases allowed and today's rules for new names refuse (a space, an emoji, a \
            compatibility character), each listed. Without it such a name is a problem of its line.
            """)
    var acceptOlderUsernames = false

    /// At most this many line errors are listed.
    static let reportedErrors = 20

    func run() async throws {
        let contents = try Self.read(file, now: Date(), options: .init(acceptSecrets: includeSecrets, acceptOlderUsernames: acceptOlderUsernames))
        for older in contents.olderUsernames.prefix(Self.reportedErrors) { note("accepted an older username: \(older)") }
        if contents.olderUsernames.count > Self.reportedErrors {
            note("… and \(contents.olderUsernames.count - Self.reportedErrors) more older usernames accepted")
        }
        let (header, records) = (contents.header, contents.records.filter(TransferFile.carries))
        let rpID = try server.rpIDSetting()
        if let fileRPID = header?.rpID, fileRPID != rpID, !ignoreRpId {
            throw CommandFailure(
                """
                the file's passkeys were made for the RP ID \(fileRPID), and this server's is \(rpID): they would not sign in here. \
                Pass --rp-id \(fileRPID) (as the server will run), or --ignore-rp-id to import them all the same.
                """)
        }
        if header?.rpID == nil {
            note("the file does not say the RP ID its passkeys were made for: they sign in only if it is \(rpID), this server's")
        }
        var counts = TransferCounts()
        for record in records { counts.add(record) }
        guard !records.isEmpty else {
            say("nothing to import: the file is the export of an empty database")
            return
        }
        if dryRun {
            // Checked against the database too, when there is one: written in a transaction that is rolled back.
            if case .sqlite(let path) = try? DatabaseURL(try server.databaseSetting()), !FileManager.default.fileExists(atPath: path) {
                say("would import \(counts.summary): the file has no problems, and there is no database yet to conflict with")
                return
            }
            // Opened without migrating: a dry run changes nothing, not even the schema.
            let repository: any PasskeyRepository
            do { repository = try await openStorage(server, mustExist: true, migrate: false) } catch let error as StorageError {
                throw CommandFailure("the file has no problems, but the database could not be checked: \(error.reason)")
            }
            do { try await repository.importRecords(records, dryRun: true) } catch {
                guard error.code != .unavailable else {
                    throw CommandFailure("the file has no problems, but the database could not be checked: \(error.reason)")
                }
                throw CommandFailure("the import would fail, and write nothing: \(error.reason)")
            }
            say("would import \(counts.summary): the file has no problems, and nothing in the database conflicts with it")
            return
        }
        let repository = try await openStorage(server)
        do { try await repository.importRecords(records) } catch {
            guard error.code != .unavailable else {
                // A deadline or a lost connection while committing: the outcome is not known.
                throw CommandFailure(
                    "the import may or may not have been written: \(error.reason). Run it again: if it was written, it stops at its first account with \"exists\", and writes nothing")
            }
            throw CommandFailure("nothing was imported: \(error.reason)")
        }
        await recordCommand("import", "imported \(counts.summary)", in: repository)
        say("imported \(counts.summary)")
    }

    /// The file (or standard input for `-`), read a piece at a time and checked (``TransferFile/Reader``): memory holds
    /// one line and the records, never the file. Every problem is listed with its line.
    static func read(_ file: String, now: Date, options: TransferFile.ReadOptions) throws -> TransferFile.Contents {
        let descriptor: Int32
        if file == "-" {
            descriptor = STDIN_FILENO
        } else {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), isFolder.boolValue {
                throw CommandFailure("cannot read \(file): it is a folder")
            }
            descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CommandFailure("cannot read \(file): \(String(cString: strerror(errno)))") }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var reader = TransferFile.Reader(now: now, options: options)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("cannot read \(file): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            reader.feed(buffer[..<count])
        }
        do throws(TransferFile.Problems) { return try reader.finish() } catch {
            let listed = error.lines.prefix(reportedErrors).map { "  \($0)" }.joined(separator: "\n")
            let more = error.count > reportedErrors ? "\n  … and \(error.count - reportedErrors) more" : ""
            throw CommandFailure("nothing was imported: \(error.count) problem\(error.count == 1 ? "" : "s") in the file:\n\(listed)\(more)")
        }
    }
}

/// How many records of each kind, for the commands' last line.
struct TransferCounts {
    var counts: [Int] = Array(repeating: 0, count: 7)

    mutating func add(_ record: TransferRecord) { counts[record.rank] += 1 }

    var total: Int { counts.reduce(0, +) }

    var summary: String {
        let names = [
            ("account", "accounts"), ("passkey", "passkeys"), ("admin", "admins"), ("admin passkey", "admin passkeys"),
            ("API key", "API keys"), ("signing key", "signing keys"), ("secret", "secrets"),
        ]
        return zip(counts, names).enumerated().compactMap { index, pair in
            let (count, (one, many)) = pair
            // Accounts and passkeys always; the rest when there are any.
            guard count > 0 || index < 2 else { return nil }
            return "\(count) \(count == 1 ? one : many)"
        }.joined(separator: ", ")
    }
}

/// Where an export goes: a new file (mode 0600, removed again when the export fails) or standard output. Lines are
/// buffered and written in blocks; the file is synced before the export says it is done.
final class LineSink: Sendable {
    let path: String?
    let descriptor: Int32
    let buffer = Mutex<[UInt8]>([])

    init(path: String?) throws {
        self.path = path
        guard let path else {
            descriptor = FileHandle.standardOutput.fileDescriptor
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists already (an export never overwrites a file)" : String(cString: strerror(errno))
            throw CommandFailure("cannot create \(path): \(reason)")
        }
    }

    func write(_ line: String) throws {
        let full = buffer.withLock { bytes -> [UInt8]? in
            bytes.append(contentsOf: line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            guard bytes.count >= 1 << 16 else { return nil }
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }
        if let full { try writeAll(full) }
    }

    func finish() throws {
        try writeAll(buffer.withLock { bytes in
            defer { bytes.removeAll() }
            return bytes
        })
        guard path != nil else { return }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else { throw CommandFailure("cannot write \(path ?? ""): \(String(cString: strerror(errno)))") }
    }

    /// After a failure: the partial file goes, so that no half export is taken for a whole one.
    func abandon() {
        guard let path else { return }
        close(descriptor)
        unlink(path)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("cannot write \(path ?? "standard output"): \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }
}

/// A note for the person at the terminal, on standard error: standard output may be the export itself.
func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

/// Puts a subcommand's change in the dashboard's event log, as an admin's change made there: `admin.<action>`, said to
/// come from the command line. Best effort: the change is made, and a log that cannot be written does not undo it.
func recordCommand(_ action: String, _ detail: String, user: UserRecord? = nil, in repository: any PasskeyRepository) async {
    await StoredAuditLog(repository: repository).record(UsersCommand.actor.entry(action, detail: detail, user: user, time: Date()))
}
