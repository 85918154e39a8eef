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

    /// A `passkey.authenticator_compromised` message naming `number`'s BLOB, to tell whose announcement was written.
    static func announcement(_ number: Int) -> WebhookMessageRecord {
        WebhookMessageRecord(
            id: "msg_blob\(number)", type: WebhookEventType.passkeyAuthenticatorCompromised.rawValue, createdAt: Date(timeIntervalSince1970: 1_734_652_800),
            userID: "u\(number)", credentialID: [UInt8(number % 256)], detail: "00000000-0000-0000-0000-00000000000\(number % 10) USER_KEY_PHYSICAL_COMPROMISE refused")
    }

    static func announced(_ repo: any WebhookRepository) async throws -> [String] {
        try await repo.webhookDeliveries(endpointID: nil, before: nil, limit: 100).map(\.message.id)
    }

    @Test("a BLOB is replaced only by one with a higher serial number over the one its caller read, and reads back as stored", arguments: Backend.available)
    func replacedOnlyByNewer(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let empty = try await repo.metadataBLOB()
            let noNumber = try await repo.metadataBLOBNumber()
            #expect(empty == nil && noNumber == nil)
            let first = try await repo.storeMetadataBLOB(Self.blob(121, 1), replacing: nil, announcing: [])
            let firstRead = try await repo.metadataBLOB()
            let firstNumber = try await repo.metadataBLOBNumber()
            #expect(first && firstRead == Self.blob(121, 1) && firstNumber == 121)
            // The same serial, or an older one: refused, the one in force kept byte for byte.
            let same = try await repo.storeMetadataBLOB(Self.blob(121, 2), replacing: 121, announcing: [])
            let older = try await repo.storeMetadataBLOB(Self.blob(120, 3), replacing: 121, announcing: [])
            // Newer, but its caller read no BLOB (or another one): what it announces was worked out against the wrong one.
            let staleRead = try await repo.storeMetadataBLOB(Self.blob(125, 5), replacing: nil, announcing: [])
            let otherRead = try await repo.storeMetadataBLOB(Self.blob(125, 5), replacing: 119, announcing: [])
            let kept = try await repo.metadataBLOB()
            #expect(!same && !older && !staleRead && !otherRead && kept == Self.blob(121, 1))
            let newer = try await repo.storeMetadataBLOB(Self.blob(122, 4), replacing: 121, announcing: [])
            let newerRead = try await repo.metadataBLOB()
            #expect(newer && newerRead == Self.blob(122, 4))
        }
    }

    @Test("what a store announces is written with it, for the endpoints that receive the type, and not when it is refused", arguments: Backend.available)
    func announcedWithTheStore(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let time = Date(timeIntervalSince1970: 1_734_652_800)
            try await repo.addWebhookEndpoint(
                WebhookEndpointRecord(id: "whe_all", url: "https://hooks.example.com/a", secret: "whsec_" + String(repeating: "A", count: 44), createdAt: time), limit: 10)
            try await repo.addWebhookEndpoint(
                WebhookEndpointRecord(
                    id: "whe_users", url: "https://hooks.example.com/u", eventTypes: ["user.created"], secret: "whsec_" + String(repeating: "B", count: 44),
                    createdAt: time), limit: 10)
            #expect(try await repo.storeMetadataBLOB(Self.blob(10), replacing: nil, announcing: [Self.announcement(10)]))
            #expect(try await !repo.storeMetadataBLOB(Self.blob(9), replacing: 10, announcing: [Self.announcement(9)]))
            let deliveries = try await repo.webhookDeliveries(endpointID: nil, before: nil, limit: 100)
            #expect(deliveries.map(\.endpointID) == ["whe_all"])
            let message = try #require(deliveries.first?.message)
            #expect(message.id == "msg_blob10" && message.type == "passkey.authenticator_compromised" && message.userID == "u10")
            #expect(message.detail == Self.announcement(10).detail && message.credentialID == [10])
        }
    }

    @Test("BLOBs stored at once over the same read: one is stored, and only its announcement is written", arguments: Backend.available)
    func racingStores(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.addWebhookEndpoint(
                WebhookEndpointRecord(
                    id: "whe_all", url: "https://hooks.example.com/a", secret: "whsec_" + String(repeating: "A", count: 44),
                    createdAt: Date(timeIntervalSince1970: 1_734_652_800)), limit: 10)
            // First over none, then over whichever won the first round.
            var inForce: Int?
            for numbers in [[130, 129, 131, 128], [140, 141, 142, 143]] {
                let previous = inForce
                let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                    for number in numbers {
                        group.addTask { (number, try await repo.storeMetadataBLOB(Self.blob(number), replacing: previous, announcing: [Self.announcement(number)])) }
                    }
                    var all: [(Int, Bool)] = []
                    for try await result in group { all.append(result) }
                    return all
                }
                let winners = results.filter(\.1).map(\.0)
                let stored = try await repo.metadataBLOBNumber()
                #expect(winners.count == 1 && stored == winners.first, "\(results)")
                let announced = try await Self.announced(repo)
                #expect(announced.first == winners.first.map { "msg_blob\($0)" })
                inForce = stored
            }
            #expect(try await Self.announced(repo).count == 2)
        }
    }
}
