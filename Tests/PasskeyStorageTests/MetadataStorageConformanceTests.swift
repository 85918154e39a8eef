import Foundation
import PasskeyStorage
import Testing

@Suite("Storage conformance: the metadata BLOB in force")
struct MetadataStorageConformanceTests {
    static func blob(_ number: Int, _ marker: UInt8 = 0) -> StoredMetadataBLOB {
        StoredMetadataBLOB(
            number: number, bytes: [UInt8](repeating: marker, count: 4096) + Array("no \(number)".utf8),
            verifiedAt: Date(timeIntervalSince1970: 1_734_652_800), nextUpdate: Date(timeIntervalSince1970: 1_735_689_600))
    }

    @Test("a BLOB is replaced only by one with a higher serial number, and reads back as stored", arguments: Backend.available)
    func replacedOnlyByNewer(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let empty = try await repo.metadataBLOB()
            #expect(empty == nil)
            let first = try await repo.storeMetadataBLOB(Self.blob(121, 1))
            let firstRead = try await repo.metadataBLOB()
            #expect(first && firstRead == Self.blob(121, 1))
            // The same serial, or an older one: refused, the one in force kept byte for byte.
            let same = try await repo.storeMetadataBLOB(Self.blob(121, 2))
            let older = try await repo.storeMetadataBLOB(Self.blob(120, 3))
            let kept = try await repo.metadataBLOB()
            #expect(!same && !older && kept == Self.blob(121, 1))
            let newer = try await repo.storeMetadataBLOB(Self.blob(122, 4))
            let newerRead = try await repo.metadataBLOB()
            #expect(newer && newerRead == Self.blob(122, 4))
        }
    }

    @Test("two BLOBs stored at once leave the newer one, whichever lands last", arguments: Backend.available)
    func racingStores(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for number in [130, 129, 131, 128] {
                    group.addTask { (number, try await repo.storeMetadataBLOB(Self.blob(number))) }
                }
                var all: [(Int, Bool)] = []
                for try await result in group { all.append(result) }
                return all
            }
            let stored = try await repo.metadataBLOB()
            #expect(results.contains { $0.0 == 131 && $0.1 })
            #expect(stored?.number == 131)
        }
    }
}
