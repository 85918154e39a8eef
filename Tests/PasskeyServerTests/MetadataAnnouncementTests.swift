import Foundation
import PasskeyAttestation
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire
import Testing

/// A newer metadata BLOB that reports a model compromised announces every stored passkey of the model once, with a
/// `passkey.authenticator_compromised` webhook message, written with the BLOB.
@Suite("Passkeys announced when their model is reported compromised")
struct MetadataAnnouncementTests {
    static let keyModel = AttestationPolicyTests.model
    static let bypassModel = "0bb43545-fd2c-4185-87dd-feb0b2916ace"
    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    static func passkey(_ id: UInt8, user: String, model: String, at time: Date) -> CredentialRecordEntry {
        CredentialRecordEntry(
            id: [id, id, id], userID: user, publicKey: [0xa0], algorithm: -7, signCount: 0, uvInitialized: true, transports: [], backupEligible: false,
            backupState: false, aaguid: model.uppercased(), attestationFormat: "packed", attestationType: "Basic", name: "Key \(id)", createdAt: time)
    }

    /// The payloads written, oldest first.
    static func payloads(_ repository: InMemoryRepository) async -> [JSONValue] {
        await repository.webhookDeliveries(endpointID: nil, before: nil, limit: 50).reversed().map { WebhookPayload.json(of: $0.message) }
    }

    @Test("each newly reported model's passkeys once, with the statuses and whether sign-in is refused; a later BLOB repeating a report announces nothing")
    func announcedOnce() async throws {
        let repository = InMemoryRepository()
        let service = try MetadataTrustTests.MetadataService()
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let store = MetadataStore(repository: repository, verifier: try MetadataBLOBVerifier(rootPEM: service.rootPEM))
        let earlier = Self.time.addingTimeInterval(-86_400)
        for (index, (name, model)) in [("ann", Self.keyModel), ("bo", Self.keyModel), ("cy", Self.bypassModel), ("di", "11111111-2222-3333-4444-555555555555")].enumerated() {
            let user = UserRecord(id: "u-\(name)", userHandle: [UInt8(index + 1)], username: name, displayName: name.capitalized, isAnonymous: false, createdAt: earlier)
            try await repository.register(Self.passkey(UInt8(index + 1), user: user.id, model: model, at: earlier), for: user)
        }
        try await repository.addWebhookEndpoint(
            WebhookEndpointRecord(id: "whe_a", url: "https://hooks.example.com/a", secret: "whsec_" + String(repeating: "A", count: 44), createdAt: earlier), limit: 5)
        let refusing = AuthenticatorStatus.keyCompromises
        func blob(_ number: Int, key: [String], bypass: [String]) throws -> [UInt8] {
            try service.blob(number: number, models: [(Self.keyModel, key), (Self.bypassModel, bypass)], vendorRootPEM: vendor.rootPEM)
        }

        // No compromise yet: nothing announced.
        let first = try await store.importBLOB(try blob(7, key: ["FIDO_CERTIFIED"], bypass: ["FIDO_CERTIFIED"]), now: Self.time, refusingSignIn: refusing)
        #expect(first.flagged.isEmpty)
        #expect(await Self.payloads(repository).isEmpty)

        // Keys extractable on one model, user verification bypassable on the other.
        let second = try await store.importBLOB(
            try blob(8, key: ["FIDO_CERTIFIED", "USER_KEY_PHYSICAL_COMPROMISE"], bypass: ["USER_VERIFICATION_BYPASS"]), now: Self.time, refusingSignIn: refusing)
        #expect(second.flagged.map(\.passkey.userID).sorted() == ["u-ann", "u-bo", "u-cy"])
        let payloads = await Self.payloads(repository)
        #expect(payloads.count == 3)
        let ann = try #require(payloads.first { $0.objectValue?["data"]?.objectValue?["userId"] == "u-ann" })
        #expect(ann.objectValue?["type"] == "passkey.authenticator_compromised")
        #expect(
            ann.objectValue?["data"]
                == [
                    "userId": "u-ann", "username": "ann", "displayName": "Ann", "credentialId": .string(Base64URL.encode([1, 1, 1])), "passkeyName": "Key 1",
                    "aaguid": .string(Self.keyModel), "statuses": ["USER_KEY_PHYSICAL_COMPROMISE"], "signInRefused": true,
                ])
        let cy = try #require(payloads.first { $0.objectValue?["data"]?.objectValue?["userId"] == "u-cy" })
        #expect(cy.objectValue?["data"]?.objectValue?["statuses"] == ["USER_VERIFICATION_BYPASS"])
        #expect(cy.objectValue?["data"]?.objectValue?["signInRefused"] == false)

        // The same reports again in a newer BLOB: nothing new to say.
        let third = try await store.importBLOB(
            try blob(9, key: ["FIDO_CERTIFIED", "USER_KEY_PHYSICAL_COMPROMISE"], bypass: ["USER_VERIFICATION_BYPASS"]), now: Self.time, refusingSignIn: refusing)
        #expect(third.flagged.isEmpty)
        #expect(await Self.payloads(repository).count == 3)

        // A further kind on a reported model is news; under --allow-compromised-authenticators sign-in is not refused.
        let fourth = try await store.importBLOB(
            try blob(10, key: ["USER_KEY_PHYSICAL_COMPROMISE"], bypass: ["USER_VERIFICATION_BYPASS", "ATTESTATION_KEY_COMPROMISE"]), now: Self.time, refusingSignIn: [])
        #expect(fourth.flagged.map(\.passkey.userID) == ["u-cy"])
        let last = try #require(await Self.payloads(repository).last?.objectValue?["data"])
        #expect(last.objectValue?["statuses"] == ["USER_VERIFICATION_BYPASS", "ATTESTATION_KEY_COMPROMISE"] && last.objectValue?["signInRefused"] == false)
    }
}
