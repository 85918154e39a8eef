import Foundation
import PasskeyServer
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire

/// Accounts made with `passkey-server import`, not over HTTP: account `i` is `user<i>` with one passkey. Every passkey
/// has the same public key (nothing requires keys to differ), so the load generator signs for any account with one
/// private key and computes everything else from `i`.
struct Seeding {
    let key: TestKey

    static func username(_ index: Int) -> String { "user" + String(format: "%07d", index) }
    static func userHandle(_ index: Int) -> [UInt8] { Array("pkbench\u{0}".utf8) + bigEndian(index) }
    static func credentialID(_ index: Int) -> [UInt8] { Array("pkbcred\u{0}".utf8) + bigEndian(index) }
    static func bigEndian(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) } }

    /// Writes the transfer file for `count` accounts into `folder` and imports it into `database` (migrated first).
    /// Returns the seconds the import took.
    func seed(_ count: Int, database: String, folder: URL) throws -> Double {
        try ServerUnderTest.run(["migrate", "--database", database])
        let file = folder.appendingPathComponent("seed-\(count).jsonl")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        var buffer: [UInt8] = []
        func write(_ line: String) throws {
            buffer += Array(line.utf8)
            buffer.append(0x0a)
            if buffer.count > 1 << 16 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        let created = Date().addingTimeInterval(-86_400)
        try write(TransferFile.headerLine(.init(rpID: "localhost", exportedAt: created, includesSecrets: false)))
        let publicKey = key.coseKey.encoded
        for index in 0..<count {
            let user = UserRecord(
                id: "bench-" + String(format: "%07d", index), userHandle: Self.userHandle(index), username: Self.username(index),
                displayName: "User \(index)", isAnonymous: false, createdAt: created)
            try write(TransferFile.line(.user(user, externalID: nil)))
        }
        for index in 0..<count {
            try write(
                TransferFile.line(
                    .credential(
                        CredentialRecordEntry(
                            id: Self.credentialID(index), userID: "bench-" + String(format: "%07d", index), publicKey: publicKey, algorithm: -7,
                            signCount: 0, uvInitialized: true, transports: ["internal"], backupEligible: false, backupState: false,
                            aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none", attestationType: "None", createdAt: created))))
        }
        try write(TransferFile.endLine(records: 2 * count))
        try handle.write(contentsOf: buffer)
        try handle.close()
        let start = ContinuousClock.now
        try ServerUnderTest.run(["import", file.path, "--database", database])
        try? FileManager.default.removeItem(at: file)
        return (ContinuousClock.now - start).seconds
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
