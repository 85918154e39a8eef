import Foundation
import PasskeyStorage
import PasskeyWire
import PostgresNIO

/// Reads a row by position, bounds-checked: a missing column, a NULL where a value must be, or a value of the wrong type
/// is `storage_corrupt`, never a crash.
struct PostgresRowReader {
    let row: PostgresRandomAccessRow
    /// Where this record's columns start (joins put several records in one row).
    let offset: Int

    init(_ row: PostgresRow, offset: Int = 0) {
        self.row = row.makeRandomAccess()
        self.offset = offset
    }

    func cell(_ index: Int) throws(StorageError) -> PostgresCell {
        let position = offset + index
        guard position >= 0, position < row.count else {
            throw StorageError(.corrupt, "a row has \(row.count) columns, column \(position) was expected")
        }
        return row[position]
    }

    func isNull(_ index: Int) throws(StorageError) -> Bool { try cell(index).bytes == nil }

    func value<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws(StorageError) -> T {
        let cell = try cell(index)
        guard cell.bytes != nil else { throw StorageError(.corrupt, "column \(cell.columnName) is NULL") }
        do { return try cell.decode(T.self) } catch {
            throw StorageError(.corrupt, "column \(cell.columnName) does not decode as \(T.self)")
        }
    }

    func optional<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws(StorageError) -> T? {
        try isNull(index) ? nil : value(index, T.self)
    }

    func bytes(_ index: Int) throws(StorageError) -> [UInt8] { Array(try value(index, ByteBuffer.self).readableBytesView) }

    func optionalBytes(_ index: Int) throws(StorageError) -> [UInt8]? {
        try optional(index, ByteBuffer.self).map { Array($0.readableBytesView) }
    }

    func date(_ index: Int) throws(StorageError) -> Date { PostgresTime.date(try value(index, Int64.self)) }
    func optionalDate(_ index: Int) throws(StorageError) -> Date? { try optional(index, Int64.self).map(PostgresTime.date) }
}

/// Times are stored as integer milliseconds since 1970 (UTC), exactly as the SQLite store does.
enum PostgresTime {
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

extension ByteBuffer {
    init(_ bytes: [UInt8]) { self.init(bytes: bytes) }
}

extension UserRecord {
    static let columnCount = 9

    init(_ row: PostgresRowReader) throws(StorageError) {
        self.init(
            id: try row.value(0, String.self), userHandle: try row.bytes(1), username: try row.optional(2, String.self),
            displayName: try row.value(3, String.self), isAnonymous: try row.value(4, Bool.self), createdAt: try row.date(5),
            lastSignInAt: try row.optionalDate(6), disabledAt: try row.optionalDate(7), tokensRevokedAt: try row.optionalDate(8))
    }
}

extension CredentialRecordEntry {
    static let columnCount = 15

    init(_ row: PostgresRowReader) throws(StorageError) {
        let signCount = try row.value(4, Int64.self)
        guard let counter = UInt32(exactly: signCount) else { throw StorageError(.corrupt, "sign count \(signCount) out of range") }
        self.init(
            id: try row.bytes(0), userID: try row.value(1, String.self), publicKey: try row.bytes(2),
            algorithm: try row.value(3, Int.self), signCount: counter, uvInitialized: try row.value(5, Bool.self),
            transports: try row.value(6, [String].self), backupEligible: try row.value(7, Bool.self),
            backupState: try row.value(8, Bool.self), aaguid: try row.value(9, String.self),
            attestationFormat: try row.value(10, String.self), attestationType: try row.value(11, String.self),
            name: try row.optional(12, String.self), createdAt: try row.date(13), lastUsedAt: try row.optionalDate(14))
    }
}

extension ChallengeRecord {
    static let columnCount = 14

    init(_ row: PostgresRowReader) throws(StorageError) {
        let ceremonyName = try row.value(2, String.self)
        guard let ceremony = Ceremony(rawValue: ceremonyName) else { throw StorageError(.corrupt, "unknown ceremony \(ceremonyName)") }
        self.init(
            key: try row.value(0, String.self), challenge: try row.value(1, String.self), ceremony: ceremony,
            userID: try row.optional(3, String.self), username: try row.optional(4, String.self),
            displayName: try row.optional(5, String.self), userHandle: try row.optionalBytes(6),
            allowedCredentialIDs: try row.value(7, [ByteBuffer].self).map { Array($0.readableBytesView) },
            replacesCredentialID: try row.optionalBytes(10), conditional: try row.value(11, Bool.self),
            forExistingUser: try row.value(12, Bool.self), acceptedContacts: ContactKind.decode(try row.optional(13, String.self)),
            createdAt: try row.date(8), expiresAt: try row.date(9))
    }
}
