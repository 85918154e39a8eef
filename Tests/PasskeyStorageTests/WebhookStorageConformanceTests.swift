import Foundation
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// The webhook outbox on every store: what each change writes (the databases' triggers, the in-memory store's
/// mutations), to whom, only in the change's own transaction, and the delivery bookkeeping several instances share.
@Suite("Webhook storage conformance")
struct WebhookStorageConformanceTests {
    static func endpoint(_ id: String, types: [String] = [], disabled: Bool = false, at time: Date = t0) -> WebhookEndpointRecord {
        WebhookEndpointRecord(
            id: id, url: "https://hooks.example.com/\(id)", description: "test", eventTypes: types, secret: "whsec_" + String(repeating: "A", count: 44),
            createdAt: time, disabledAt: disabled ? time : nil)
    }

    /// The endpoint's messages, oldest first: type, user id, and what the type adds.
    static func messages(_ repo: any PasskeyRepository, _ endpoint: String) async throws -> [WebhookMessageRecord] {
        try await repo.webhookDeliveries(endpointID: endpoint, before: nil, limit: 200).map(\.message).reversed()
    }

    @Test("the endpoint limit holds under concurrent additions: of 12 at once with room for 3, 3 are added", arguments: Backend.available)
    func endpointLimit(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.addWebhookEndpoint(Self.endpoint("whe_first"), limit: 4)
            let outcomes = await withTaskGroup(of: StorageError.Code?.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        do throws(StorageError) { try await repo.addWebhookEndpoint(Self.endpoint("whe_\(index)"), limit: 4) } catch { return error.code }
                        return nil
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 3, "\(outcomes)")
            #expect(outcomes.filter { $0 == .limitReached }.count == 9, "\(outcomes)")
            #expect(try await repo.webhookEndpoints().count == 4)
        }
    }

    @Test("without an enabled endpoint nothing is written", arguments: Backend.available)
    func nothingWithoutEndpoint(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.addWebhookEndpoint(Self.endpoint("whe_off", disabled: true), limit: 100)
            let (ann, _) = try await registerAnnAndBob(repo)
            try await repo.deleteUser(id: ann.id)
            #expect(try await repo.webhookDeliveries(endpointID: nil, before: nil, limit: 10).isEmpty)
            #expect(try await repo.dueWebhookEndpoints(now: t0.addingTimeInterval(3600)).isEmpty)
        }
    }

    @Test(
        "each change to accounts and passkeys writes its message, in order, with what it reports; a deleted account is one user.deleted",
        arguments: Backend.available)
    func changesWriteMessages(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.addWebhookEndpoint(Self.endpoint("whe_all"), limit: 100)
            let ann = makeUser("ann", handle: 1)
            let linked = try await repo.linkedUser(externalID: "shop-42", orCreate: ann)
            try await repo.register(makeCredential(1, user: ann), for: ann)
            try await repo.register(makeCredential(2, user: ann), for: ann)
            try await repo.renameCredential(id: [1, 1, 1], userID: ann.id, name: "Work laptop")
            try await repo.renameCredential(id: [1, 1, 1], userID: ann.id, name: "Work laptop")  // unchanged: no message
            _ = try await repo.updateNames(userID: ann.id, username: "annie", displayName: nil)
            _ = try await repo.setUserDisabled(id: ann.id, disabledAt: t0)
            _ = try await repo.setUserDisabled(id: ann.id, disabledAt: t0)  // already disabled: no message
            _ = try await repo.setUserDisabled(id: ann.id, disabledAt: nil)
            try await repo.deleteCredential(id: [2, 2, 2], userID: ann.id)
            try await repo.deleteUser(id: ann.id)

            let messages = try await Self.messages(repo, "whe_all")
            #expect(
                messages.map(\.type) == [
                    "user.created", "passkey.created", "passkey.created", "passkey.renamed", "user.updated", "user.disabled", "user.enabled",
                    "passkey.deleted", "user.deleted",
                ])
            #expect(messages.allSatisfy { $0.userID == linked.id })
            #expect(Set(messages.map(\.id)).count == messages.count && messages.allSatisfy { $0.id.hasPrefix("msg_") })
            #expect(zip(messages, messages.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
            #expect(messages[1].credentialID == [1, 1, 1] && messages[1].detail == "fbfc3007-154e-4ecc-8c0b-6e020557d7bd")
            #expect(messages[3].credentialName == "Work laptop" && messages[3].detail == nil, "renamed from no name")
            #expect(messages[4].username == "annie" && messages[4].detail == "ann")
            #expect(messages[7].credentialID == [2, 2, 2] && messages[7].username == "annie")
            // The account's deletion keeps what it was: its name and the app's user id linked to it.
            #expect(messages[8].username == "annie" && messages[8].externalUserID == "shop-42")
            // The app's user id of a live account is read when the message is read (the link is made after the account).
            #expect(messages[0].externalUserID == "shop-42")
        }
    }

    @Test("a refused change writes no message: the outbox is in the change's transaction", arguments: Backend.available)
    func refusedChangeWritesNothing(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, _) = try await registerAnnAndBob(repo)
            try await repo.addWebhookEndpoint(Self.endpoint("whe_all"), limit: 100)
            // Username taken: neither the account nor its passkey is stored, and no message either.
            let other = makeUser("ann", handle: 9)
            #expect(await storageCode { try await repo.register(makeCredential(9, user: other), for: other) } == .usernameTaken)
            // A credential ID registered already.
            let carol = makeUser("carol", handle: 3)
            #expect(await storageCode { try await repo.register(makeCredential(1, user: carol), for: carol) } == .credentialExists)
            // A registration whose challenge is gone.
            #expect(
                await storageCode { try await repo.register(makeCredential(4, user: ann), for: ann, spending: .stored(key: "none"), now: t0) }
                    == .challengeConsumed)
            #expect(try await repo.webhookDeliveries(endpointID: nil, before: nil, limit: 10).isEmpty)
        }
    }

    @Test("a redeemed link writes the new passkey, the replaced ones and recovery.link_used in its transaction", arguments: Backend.available)
    func linkUsed(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, _) = try await registerAnnAndBob(repo)
            try await repo.addWebhookEndpoint(Self.endpoint("whe_all"), limit: 100)
            try await repo.saveConnectToken(
                ConnectTokenRecord(hash: [5], type: "account-link-reset", userID: ann.id, singleUse: true, createdAt: t0, expiresAt: t0.addingTimeInterval(600)))
            try await repo.saveChallenge(
                ChallengeRecord(
                    key: "r1", challenge: "challenge-r1", ceremony: .registration, userID: ann.id, username: ann.username, displayName: ann.displayName,
                    userHandle: ann.userHandle, forExistingUser: true, createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
            let replaced = try await repo.redeemAccountToken(
                hash: [5], registering: makeCredential(7, user: ann), for: ann, consumingChallenge: "r1", replacingOtherPasskeys: true, now: t0)
            #expect(replaced == [[1, 1, 1]])
            let messages = try await Self.messages(repo, "whe_all")
            #expect(messages.map(\.type) == ["passkey.created", "passkey.deleted", "recovery.link_used"])
            #expect(messages[1].credentialID == [1, 1, 1])
            #expect(messages[2].credentialID == [7, 7, 7] && messages[2].detail == "replaced" && messages[2].username == "ann")
        }
    }

    @Test("each endpoint gets the types it asked for, the same message id for all; disabled endpoints get none", arguments: Backend.available)
    func subscriptions(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.addWebhookEndpoint(Self.endpoint("whe_a", types: ["passkey.created"]), limit: 100)
            try await repo.addWebhookEndpoint(Self.endpoint("whe_b"), limit: 100)
            try await repo.addWebhookEndpoint(Self.endpoint("whe_c", types: ["user.deleted"], disabled: true), limit: 100)
            let (ann, _) = try await registerAnnAndBob(repo)
            try await repo.enqueueWebhookMessage(
                WebhookMessageRecord(id: "msg_explicit", type: "signin.counter_regressed", createdAt: t0, userID: ann.id, detail: "refused"))
            try await repo.enqueueWebhookMessage(WebhookMessageRecord(id: "msg_b_only", type: "user.deleted", createdAt: t0, userID: ann.id))
            let a = try await Self.messages(repo, "whe_a")
            let b = try await Self.messages(repo, "whe_b")
            #expect(a.map(\.type) == ["passkey.created", "passkey.created"])
            #expect(b.map(\.type) == ["user.created", "passkey.created", "user.created", "passkey.created", "signin.counter_regressed", "user.deleted"])
            #expect(a.map(\.id) == b.filter { $0.type == "passkey.created" }.map(\.id))
            #expect(b[4].id == "msg_explicit" && b[4].detail == "refused" && b[4].username == nil)
            #expect(try await Self.messages(repo, "whe_c").isEmpty)
            #expect(try await repo.dueWebhookEndpoints(now: Date().addingTimeInterval(60)) == ["whe_a", "whe_b"])
        }
    }

    @Test(
        "one instance at a time holds an endpoint's lease; attempts are recorded; failed deliveries are retried and purged once old",
        arguments: Backend.available)
    func deliveryBookkeeping(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.addWebhookEndpoint(Self.endpoint("whe_a"), limit: 100)
            _ = try await registerAnnAndBob(repo)
            let now = Date()
            #expect(try await repo.leaseWebhookEndpoint(id: "whe_a", owner: "one", until: now.addingTimeInterval(30), now: now))
            #expect(try await repo.leaseWebhookEndpoint(id: "whe_a", owner: "two", until: now.addingTimeInterval(30), now: now) == false)
            #expect(try await repo.dueWebhookEndpoints(now: now).isEmpty, "a leased endpoint is not due for others")
            #expect(try await repo.leaseWebhookEndpoint(id: "whe_a", owner: "one", until: now.addingTimeInterval(60), now: now), "renewed")
            // Once it expires, another instance takes it.
            #expect(try await repo.leaseWebhookEndpoint(id: "whe_a", owner: "two", until: now.addingTimeInterval(90), now: now.addingTimeInterval(61)))
            try await repo.releaseWebhookEndpoint(id: "whe_a", owner: "one")  // not its lease: no effect
            #expect(try await repo.leaseWebhookEndpoint(id: "whe_a", owner: "one", until: now.addingTimeInterval(30), now: now) == false)
            try await repo.releaseWebhookEndpoint(id: "whe_a", owner: "two")

            let pending = try await repo.pendingWebhookDeliveries(endpointID: "whe_a", limit: 10)
            #expect(pending.map(\.message.type) == ["user.created", "passkey.created", "user.created", "passkey.created"])
            let first = pending[0].message.sequence
            try await repo.recordWebhookAttempt(
                endpointID: "whe_a", sequence: first,
                WebhookAttempt(time: now, status: 500, error: "the receiver answered HTTP 500", state: .pending, nextAttemptAt: now.addingTimeInterval(5)))
            var head = try #require(try await repo.pendingWebhookDeliveries(endpointID: "whe_a", limit: 1).first)
            #expect(head.attempts == 1 && head.lastStatus == 500 && head.lastError == "the receiver answered HTTP 500")
            #expect(abs(head.nextAttemptAt.timeIntervalSince(now.addingTimeInterval(5))) < 0.01)
            #expect(try await repo.dueWebhookEndpoints(now: now).isEmpty, "the head waits for its retry")
            try await repo.recordWebhookAttempt(endpointID: "whe_a", sequence: first, WebhookAttempt(time: now, status: nil, error: "no answer", state: .failed))
            head = try #require(try await repo.pendingWebhookDeliveries(endpointID: "whe_a", limit: 1).first)
            #expect(head.message.sequence > first, "a failed delivery leaves the queue")
            try await repo.recordWebhookAttempt(
                endpointID: "whe_a", sequence: head.message.sequence, WebhookAttempt(time: now, status: 204, error: nil, state: .delivered))
            let all = try await repo.webhookDeliveries(endpointID: "whe_a", before: nil, limit: 10)
            #expect(all.map(\.state) == [.pending, .pending, .delivered, .failed])
            #expect(try await repo.webhookDeliveries(endpointID: "whe_a", before: all[1].message.sequence, limit: 10).count == 2)

            #expect(try await repo.retryFailedWebhookDeliveries(endpointID: "whe_a", now: now) == 1)
            #expect(try await repo.pendingWebhookDeliveries(endpointID: "whe_a", limit: 10).first?.message.sequence == first)
            // Purging keeps pending deliveries, whatever their age, and drops finished old ones.
            #expect(try await repo.purgeWebhookDeliveries(before: Date().addingTimeInterval(60)) == 1)
            #expect(try await repo.webhookDeliveries(endpointID: "whe_a", before: nil, limit: 10).count == 3)
        }
    }

    @Test("endpoints are stored, changed and deleted with their deliveries", arguments: Backend.available)
    func endpoints(backend: Backend) async throws {
        try await backend.withRepository { repo in
            var endpoint = Self.endpoint("whe_a", types: ["user.created", "user.deleted"])
            try await repo.addWebhookEndpoint(endpoint, limit: 100)
            #expect(try await repo.webhookEndpoint(id: "whe_a") == endpoint)
            endpoint.previousSecret = endpoint.secret
            endpoint.previousSecretExpiresAt = t0.addingTimeInterval(3600)
            endpoint.secret = "whsec_" + String(repeating: "B", count: 44)
            endpoint.eventTypes = []
            endpoint.disabledAt = t0
            try await repo.updateWebhookEndpoint(endpoint)
            #expect(try await repo.webhookEndpoints() == [endpoint])
            #expect(endpoint.signingSecrets(at: t0) == [endpoint.secret, endpoint.previousSecret])
            #expect(endpoint.signingSecrets(at: t0.addingTimeInterval(3600)) == [endpoint.secret])
            endpoint.disabledAt = nil
            try await repo.updateWebhookEndpoint(endpoint)
            _ = try await registerAnnAndBob(repo)
            try await repo.deleteWebhookEndpoint(id: "whe_a")
            #expect(try await repo.webhookDeliveries(endpointID: nil, before: nil, limit: 10).isEmpty)
            #expect(await storageCode { try await repo.deleteWebhookEndpoint(id: "whe_a") } == .notFound)
            #expect(await storageCode { try await repo.updateWebhookEndpoint(endpoint) } == .notFound)
        }
    }
}
