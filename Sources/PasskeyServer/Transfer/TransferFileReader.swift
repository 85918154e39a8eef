public import Foundation
public import PasskeyStorage
import PasskeyWire

extension TransferFile {
    /// A whole file, read and checked: its header, when it has one, and its records in import order (accounts before
    /// their passkeys, admins before theirs, whatever order a hand-made file has).
    public struct Contents: Sendable {
        public var header: Header?
        public var records: [TransferRecord]
    }

    /// Every problem a file has that can be found without the database, each with its line.
    public struct Problems: Error, Sendable {
        public let lines: [LineError]
    }

    /// Reads a whole file: lines end in LF or CRLF, a byte order mark at the start is skipped, blank lines are
    /// skipped. Beyond each line's own checks (``record(_:line:now:newNames:)``), the file as a whole must hold each
    /// key once (an account's id, user handle, username and app user id; a passkey's ID; …), every passkey's account
    /// (every admin passkey's admin) must be in it, and a file with a header must end with the end line of an export
    /// that finished (``endLine(records:)``), with the right count: an export cut short is refused, never imported in
    /// part. Names follow the rules for new accounts unless the file is this server's own export (it has a header).
    public static func read(_ bytes: [UInt8], now: Date) throws(Problems) -> Contents {
        var problems: [LineError] = []
        var header: Header?
        var end: (line: Int, count: Int)?
        var records: [(line: Int, record: TransferRecord)] = []
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var number = 0
        var sawFirst = false
        var ownersOnBadLines: Set<String> = []
        while start < bytes.count {
            number += 1
            let newline = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            var stop = newline
            if stop > start, bytes[stop - 1] == 0x0D { stop -= 1 }
            let slice = bytes[start..<stop]
            start = newline + 1
            guard slice.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            guard let text = String(validating: slice, as: UTF8.self) else {
                problems.append(LineError(line: number, reason: "not UTF-8 text"))
                continue
            }
            // Each line is parsed once, then asked what it is.
            var parsed: Fields?
            do throws(LineError) {
                if let found = end {
                    throw LineError(line: number, reason: "a line after the end line (line \(found.line))")
                }
                let fields = try Fields(text, line: number, now: now)
                parsed = fields
                if !sawFirst {
                    sawFirst = true
                    if let found = try TransferFile.header(fields) {
                        header = found
                        continue
                    }
                }
                if let count = try TransferFile.end(fields) {
                    end = (number, count)
                    continue
                }
                records.append((number, try record(fields, newNames: header == nil)))
            } catch {
                problems.append(error)
                // An owner on a bad line is reported there: its passkeys are not reported again as without one.
                if let object = parsed?.object, let id = object["id"]?.stringValue, let type = object["type"]?.stringValue,
                    type == "user" || type == "admin"
                {
                    ownersOnBadLines.insert(id)
                }
            }
        }
        if let end, end.count != records.count + problems.count {
            problems.append(LineError(line: end.line, reason: "the end line counts \(end.count) records, and the file holds \(records.count + problems.count)"))
        } else if header != nil, end == nil {
            problems.append(
                LineError(
                    line: number,
                    reason: "the file ends without the end line an export writes last: it was cut short (an export that failed, or a copy not finished); export again"))
        }
        problems += fileWideProblems(records, ownersOnBadLines: ownersOnBadLines)
        guard problems.isEmpty else { throw Problems(lines: problems.sorted { $0.line < $1.line }) }
        // An export of an empty database is a whole file; anything else without records is a mistake.
        guard !records.isEmpty || end != nil else { throw Problems(lines: [LineError(line: max(number, 1), reason: "the file holds no records")]) }
        let ordered = records.enumerated().sorted { ($0.element.record.rank, $0.offset) < ($1.element.record.rank, $1.offset) }
        return Contents(header: header, records: ordered.map(\.element.record))
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
