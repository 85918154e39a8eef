public import Foundation
public import PasskeyStorage
import PasskeyRelyingParty
import PasskeyWire

extension TransferFile {
    /// A whole file, read and checked: its header, when it has one, and its records in import order (accounts before
    /// their passkeys, admins before theirs, whatever order a hand-made file has).
    public struct Contents: Sendable {
        public var header: Header?
        public var records: [TransferRecord]
        /// Usernames taken only because ``ReadOptions/acceptOlderUsernames`` said so, each with the rule it breaks: the
        /// import reports them, as `migrate` reports collisions.
        public var olderUsernames: [LineError] = []
    }

    /// Every problem a file has that can be found without the database, each with its line (the first
    /// ``maximumProblems``, and how many there were).
    public struct Problems: Error, Sendable {
        public let lines: [LineError]
        /// How many problems the file has; more than `lines` holds when it has over ``maximumProblems``.
        public let count: Int

        public init(lines: [LineError], count: Int? = nil) {
            self.lines = lines
            self.count = max(count ?? lines.count, lines.count)
        }
    }

    /// What the operator allows an import beyond accounts and passkeys under today's rules.
    public struct ReadOptions: Sendable, Hashable {
        /// `import --include-secrets`: records that grant power over the server (``TransferRecord/grantsPower``) are
        /// taken, from a file whose header says it carries secrets. Without it, such a line is a problem of the file.
        public var acceptSecrets: Bool
        /// `import --accept-older-usernames`: a username that meets the rules earlier releases had but not today's for a
        /// new account (a space, an emoji, a compatibility character) is imported as it is, and reported.
        public var acceptOlderUsernames: Bool

        public init(acceptSecrets: Bool = false, acceptOlderUsernames: Bool = false) {
            self.acceptSecrets = acceptSecrets
            self.acceptOlderUsernames = acceptOlderUsernames
        }
    }

    /// The longest line read; a longer one is a problem of its line, skipped without being held. The longest record an
    /// export writes is a passkey with a 16 KiB public key, under 30 KiB as base64url.
    public static let maximumLineBytes = 64 * 1024
    /// Problems kept to report; the rest are only counted, so a file of garbage does not fill memory with its errors.
    public static let maximumProblems = 1_000

    /// Reads a whole file at once: ``Reader`` fed with all of `bytes`.
    public static func read(_ bytes: [UInt8], now: Date, options: ReadOptions = ReadOptions()) throws(Problems) -> Contents {
        var reader = Reader(now: now, options: options)
        reader.feed(bytes[...])
        return try reader.finish()
    }

    /// Reads a file in pieces, as they come (``feed(_:)``), holding one line at a time and never more than
    /// ``maximumLineBytes`` of it: lines end in LF or CRLF, a byte order mark at the start is skipped, blank lines are
    /// skipped. Beyond each line's own checks (``record(_:line:now:newNames:)``), the file as a whole must hold each key
    /// once (an account's id, user handle, username and app user id; a passkey's ID; …), every passkey's account (every
    /// admin passkey's admin) must be in it, and a file with a header must end with the end line of an export that
    /// finished (``endLine(records:)``), with the right count: an export cut short is refused, never imported in part.
    /// Names follow the rules for new accounts, whoever made the file. Records that grant power come in only from a
    /// file whose header says it carries secrets, when ``ReadOptions/acceptSecrets`` is set.
    public struct Reader {
        let now: Date
        let options: ReadOptions
        private var pending: [UInt8] = []
        /// The current line passed ``maximumLineBytes``: its bytes are dropped until its end.
        private var overlong = false
        private var atStart = true
        private var number = 0
        private var sawFirst = false
        private var header: Header?
        private var end: (line: Int, count: Int)?
        private var records: [(line: Int, record: TransferRecord)] = []
        private var problems: [LineError] = []
        private var problemCount = 0
        /// Lines that are records, good or bad (not the header, the end line or blank lines): what the end line counts.
        private var recordLines = 0
        private var olderUsernames: [LineError] = []
        private var ownersOnBadLines: Set<String> = []

        public init(now: Date, options: ReadOptions = ReadOptions()) {
            self.now = now
            self.options = options
        }

        /// The next bytes of the file.
        public mutating func feed(_ chunk: ArraySlice<UInt8>) {
            var chunk = chunk
            if atStart {
                // The byte order mark may be cut across the first pieces: wait for three bytes.
                pending += chunk
                guard pending.count >= 3 || !pending.allSatisfy({ [0xEF, 0xBB, 0xBF].contains($0) }) else { return }
                atStart = false
                chunk = pending.starts(with: [0xEF, 0xBB, 0xBF]) ? pending.dropFirst(3) : pending[...]
                pending = []
            }
            while let newline = chunk.firstIndex(of: 0x0A) {
                take(chunk[..<newline])
                completeLine()
                chunk = chunk[(newline + 1)...]
            }
            take(chunk)
        }

        /// Bytes of the current line.
        private mutating func take(_ bytes: ArraySlice<UInt8>) {
            guard !overlong, !bytes.isEmpty else { return }
            if pending.count + bytes.count > maximumLineBytes {
                overlong = true
                pending = []
                return
            }
            pending += bytes
        }

        private mutating func completeLine() {
            number += 1
            defer {
                pending.removeAll(keepingCapacity: pending.count <= 4_096)
                overlong = false
            }
            if overlong {
                report(LineError(line: number, reason: "the line is longer than \(maximumLineBytes / 1024) KiB: no record is that long"))
                return
            }
            var slice = pending[...]
            if slice.last == 0x0D { slice = slice.dropLast() }
            line(slice)
        }

        /// The end of the file: the last line, then the checks of the file as a whole.
        public mutating func finish() throws(Problems) -> Contents {
            if atStart {
                atStart = false
                if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
            }
            if !pending.isEmpty || overlong { completeLine() }
            if let end, end.count != recordLines {
                report(LineError(line: end.line, reason: "the end line counts \(end.count) records, and the file holds \(recordLines)"))
            } else if header != nil, end == nil {
                report(
                    LineError(
                        line: number,
                        reason: "the file ends without the end line an export writes last: it was cut short (an export that failed, or a copy not finished); export again"))
            }
            for problem in fileWideProblems(records, ownersOnBadLines: ownersOnBadLines) { report(problem) }
            guard problemCount == 0 else { throw Problems(lines: problems.sorted { $0.line < $1.line }, count: problemCount) }
            // An export of an empty database is a whole file; anything else without records is a mistake.
            guard !records.isEmpty || end != nil else { throw Problems(lines: [LineError(line: max(number, 1), reason: "the file holds no records")]) }
            let ordered = records.enumerated().sorted { ($0.element.record.rank, $0.offset) < ($1.element.record.rank, $1.offset) }
            return Contents(header: header, records: ordered.map(\.element.record), olderUsernames: olderUsernames)
        }

        private mutating func report(_ problem: LineError) {
            problemCount += 1
            if problems.count < maximumProblems { problems.append(problem) }
        }

        /// One line without its line break.
        private mutating func line(_ slice: ArraySlice<UInt8>) {
            guard slice.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            guard let text = String(validating: slice, as: UTF8.self) else {
                report(LineError(line: number, reason: "not UTF-8 text"))
                return
            }
            // Each line is parsed once, then asked what it is. Only the first line may be the header, whether it parses or not.
            let first = !sawFirst
            sawFirst = true
            var parsed: Fields?
            do throws(LineError) {
                if let found = end {
                    recordLines += 1
                    throw LineError(line: number, reason: "a line after the end line (line \(found.line))")
                }
                let fields: Fields
                do { fields = try Fields(text, line: number, now: now) } catch {
                    recordLines += first ? 0 : 1
                    throw error
                }
                parsed = fields
                let type = fields.object["type"]?.stringValue
                if first, fields.object["type"] == nil {
                    header = try TransferFile.header(fields)
                    return
                }
                if type == "end" {
                    end = (number, try TransferFile.end(fields) ?? 0)
                    return
                }
                recordLines += 1
                let record = try self.record(fields)
                if record.grantsPower {
                    try admit(record, line: number)
                }
                records.append((number, record))
            } catch {
                report(error)
                // An owner on a bad line is reported there: its passkeys are not reported again as without one.
                if let object = parsed?.object, let id = object["id"]?.stringValue, id.utf8.count <= 128, ownersOnBadLines.count < maximumProblems,
                    let type = object["type"]?.stringValue, type == "user" || type == "admin"
                {
                    ownersOnBadLines.insert(id)
                }
            }
        }

        /// A record, its username under today's rules for a new account (or, when the operator accepts them, the rules
        /// of earlier releases, reported).
        private mutating func record(_ fields: Fields) throws(LineError) -> TransferRecord {
            if options.acceptOlderUsernames, fields.object["type"]?.stringValue == "user", let raw = try fields.optionalString("username"),
                !((try? fields.bytes("userHandle", count: 1...64)).map { GeneratedUsername.isGenerated(raw, userHandle: $0) } ?? false)
            {
                var refusal: String?
                do { _ = try UsernameRules.normalized(raw, newAccount: true) } catch { refusal = error.message }
                // Invisible characters were never allowed in a new name: such a name is not an older one, but a disguise.
                if let refusal, !raw.unicodeScalars.contains(where: UsernameRules.isInvisible) {
                    // Still under the rules lookups keep: blank, invisible or control characters are refused here too.
                    let record = try TransferFile.record(fields, newNames: false)
                    olderUsernames.append(
                        LineError(line: fields.line, reason: "\"\(DisplayEscaping.escape(raw))\" breaks today's rules for a new username: \(refusal)"))
                    return record
                }
            }
            return try TransferFile.record(fields, newNames: true)
        }

        /// Whether a record that grants power may come in: only from an export that carries secrets, when the operator
        /// asked for them.
        private func admit(_ record: TransferRecord, line: Int) throws(LineError) {
            let kind: String
            switch record {
            case .admin: kind = "an admin, who can sign in to the dashboard"
            case .adminCredential: kind = "an admin's passkey, which signs in to the dashboard"
            case .apiKey: kind = "an API key, which calls the backend API"
            case .signingKey: kind = "a signing key, which signs the signedPasskeyData backends trust"
            case .secret: kind = "a server secret"
            case .user(_, let externalID?):
                kind = "an account linked to the app's user id \(DisplayEscaping.escape(String(externalID.prefix(64)))), whose passkeys sign in as that user of the app"
            case .user, .credential: return
            }
            guard header?.includesSecrets == true else {
                throw LineError(
                    line: line,
                    reason: "\(kind): such records come in only from an export made with --include-secrets, whose header says so; this file's \(header == nil ? "has no header" : "header says it carries no secrets")")
            }
            guard options.acceptSecrets else {
                throw LineError(
                    line: line, reason: "\(kind): pass import --include-secrets to take such records (only from a file you made with export --include-secrets)")
            }
        }
    }

    /// Keys that come twice, and passkeys whose owner is not in the file.
    static func fileWideProblems(_ records: [(line: Int, record: TransferRecord)], ownersOnBadLines: Set<String>) -> [LineError] {
        var problems: [LineError] = []
        var seen: [String: Int] = [:]
        /// `what` must be unique in the file; `key` is how it compares.
        func once(_ what: String, _ key: String, _ line: Int) {
            if let first = seen["\(what)\u{0}\(key)"] {
                problems.append(LineError(line: line, reason: "the \(what) of this line is on line \(first) too"))
            } else {
                seen["\(what)\u{0}\(key)"] = line
            }
        }
        var users: Set<String> = []
        var admins: Set<String> = []
        for (line, record) in records {
            switch record {
            case .user(let user, let externalID):
                users.insert(user.id)
                once("account id", user.id, line)
                once("user handle", Base64URL.encode(user.userHandle), line)
                if let name = user.username { once("username", UsernameKey.of(name), line) }
                if let externalID { once("externalUserId", externalID, line) }
            case .admin(let admin):
                admins.insert(admin.id)
                once("admin id", admin.id, line)
                once("admin user handle", Base64URL.encode(admin.userHandle), line)
            case .credential(let credential):
                once("passkey id", Base64URL.encode(credential.id), line)
            case .adminCredential(let credential):
                once("admin passkey id", Base64URL.encode(credential.id), line)
            case .apiKey(let key):
                once("API key id", key.id, line)
                once("API key secretHash", Base64URL.encode(key.secretHash), line)
            case .signingKey(let key):
                once("signing key id", key.id, line)
            case .secret(let name, _):
                once("secret name", name, line)
            }
        }
        for (line, record) in records {
            switch record {
            case .credential(let credential) where !users.contains(credential.userID) && !ownersOnBadLines.contains(credential.userID):
                problems.append(LineError(line: line, reason: "the passkey's account \(credential.userID) is not in the file: a passkey comes with its account"))
            case .adminCredential(let credential) where !admins.contains(credential.userID) && !ownersOnBadLines.contains(credential.userID):
                problems.append(LineError(line: line, reason: "the admin passkey's admin \(credential.userID) is not in the file: a passkey comes with its admin"))
            default:
                break
            }
        }
        return problems
    }
}
