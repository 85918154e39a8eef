import Foundation
import GRDB
import PasskeyStorage

/// Reads a result row's columns by position, so one decoder per record serves both GRDB rows and the raw statements
/// of the sign-in path (``RawStatement``). A value of the wrong type is `corrupt`, never a trap.
protocol ColumnReader {
    func isNull(_ index: Int) -> Bool
    func text(_ index: Int) throws(StorageError) -> String
    func blob(_ index: Int) throws(StorageError) -> [UInt8]
    func int64(_ index: Int) throws(StorageError) -> Int64
}

extension ColumnReader {
    func optionalText(_ index: Int) throws(StorageError) -> String? { isNull(index) ? nil : try text(index) }
    func optionalBlob(_ index: Int) throws(StorageError) -> [UInt8]? { isNull(index) ? nil : try blob(index) }
    func optionalInt64(_ index: Int) throws(StorageError) -> Int64? { isNull(index) ? nil : try int64(index) }
    func bool(_ index: Int) throws(StorageError) -> Bool { try int64(index) != 0 }
    func date(_ index: Int) throws(StorageError) -> Date { SQLiteSchema.date(try int64(index)) }
    func optionalDate(_ index: Int) throws(StorageError) -> Date? { SQLiteSchema.date(try optionalInt64(index)) }
}

extension Row: ColumnReader {
    func isNull(_ index: Int) -> Bool { hasNull(atIndex: index) }

    func text(_ index: Int) throws(StorageError) -> String {
        do { return try decode(String.self, atIndex: index) } catch { throw StorageError(.corrupt, "column \(index) is not text") }
    }

    func blob(_ index: Int) throws(StorageError) -> [UInt8] {
        do { return [UInt8](try decode(Data.self, atIndex: index)) } catch { throw StorageError(.corrupt, "column \(index) is not a blob") }
    }

    func int64(_ index: Int) throws(StorageError) -> Int64 {
        do { return try decode(Int64.self, atIndex: index) } catch { throw StorageError(.corrupt, "column \(index) is not an integer") }
    }
}
