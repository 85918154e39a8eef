public import Foundation

extension InMemoryRepository {
    // MARK: Totals

    public func totals() -> StorageTotals {
        let users = users(matching: nil, limit: Int.max, offset: 0)
        return StorageTotals(
            users: users.count, anonymousUsers: users.filter(\.isAnonymous).count,
            passkeys: users.reduce(0) { $0 + credentials(userID: $1.id).count }, admins: adminsByID.count)
    }

    public func credentialCounts(userIDs: [String]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for id in userIDs {
            let count = credentials(userID: id).count
            if count > 0 { counts[id] = count }
        }
        return counts
    }

    // MARK: Events

    public func appendEvent(_ event: EventRecord) -> EventRecord {
        var stored = event
        stored.id = nextEventID
        nextEventID += 1
        eventLog.append(stored)
        return stored
    }

    public func events(matching filter: EventFilter, before: Int64?, limit: Int) -> [EventRecord] {
        Array(eventLog.reversed().lazy.filter { event in before.map { event.id < $0 } ?? true }.filter(filter.matches).prefix(max(0, limit)))
    }

    public func eventCounts(from: Date, to: Date) -> [EventHourCount] {
        var byHour: [Date: EventHourCount] = [:]
        for event in eventLog where event.time >= from && event.time < to {
            let hour = EventHourCount.hourStart(event.time)
            var count = byHour[hour] ?? EventHourCount(hour: hour)
            if event.isRegistration { count.registrations += 1 }
            if event.isSignIn { count.signIns += 1 }
            if event.isCeremonyFailure { count.failures += 1 }
            byHour[hour] = count
        }
        return byHour.values.filter { $0.registrations + $0.signIns + $0.failures > 0 }.sorted { $0.hour < $1.hour }
    }

    public func deleteEvents(olderThan time: Date) -> Int {
        let before = eventLog.count
        eventLog.removeAll { $0.time < time }
        return before - eventLog.count
    }

    // MARK: Admins

    public func admins() -> [AdminRecord] { adminsByID.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }

    public func admin(id: String) -> AdminRecord? { adminsByID[id] }

    public func admin(userHandle: [UInt8]) -> AdminRecord? { adminsByID.values.first { $0.userHandle == userHandle } }

    public func addAdmin(_ admin: AdminRecord, credential: CredentialRecordEntry, consumingInvite inviteHash: [UInt8], now: Date)
        throws(StorageError)
    {
        guard let invite = adminInvitesByHash[inviteHash], invite.expiresAt > now else {
            throw StorageError(.notFound, "the admin invite is used or expired")
        }
        guard adminCredentialsByID[credential.id] == nil else { throw StorageError(.credentialExists, "admin credential ID already registered") }
        adminInvitesByHash[invite.hash] = nil
        if adminsByID.isEmpty { adminInvitesByHash.removeAll() }  // the first admin: the other setup links go
        adminsByID[admin.id] = admin
        adminCredentialsByID[credential.id] = credential
    }

    public func adminCredential(id: [UInt8]) -> CredentialRecordEntry? { adminCredentialsByID[id] }

    public func adminCredentials(adminID: String) -> [CredentialRecordEntry] {
        adminCredentialsByID.values.filter { $0.userID == adminID }.sorted { $0.createdAt < $1.createdAt }
    }

    public func recordAdminSignIn(credentialID: [UInt8], signCount: UInt32, backupState: Bool, at time: Date) throws(StorageError) {
        guard var credential = adminCredentialsByID[credentialID] else { throw StorageError(.notFound, "no such admin credential") }
        credential.signCount = signCount
        credential.backupState = backupState
        credential.lastUsedAt = time
        adminCredentialsByID[credentialID] = credential
    }

    public func saveAdminInvite(_ invite: AdminInviteRecord) { adminInvitesByHash[invite.hash] = invite }

    public func saveSetupInvite(_ invite: AdminInviteRecord) -> Bool {
        guard adminsByID.isEmpty else { return false }
        adminInvitesByHash[invite.hash] = invite
        return true
    }

    public func adminInvite(hash: [UInt8], now: Date) -> AdminInviteRecord? {
        guard let invite = adminInvitesByHash[hash], invite.expiresAt > now else { return nil }
        return invite
    }

    public func saveAdminSession(_ session: AdminSessionRecord) { adminSessionsByHash[session.hash] = session }

    public func adminSession(hash: [UInt8]) -> AdminSessionRecord? { adminSessionsByHash[hash] }

    public func touchAdminSession(hash: [UInt8], at time: Date, verified: Bool) {
        adminSessionsByHash[hash]?.lastSeenAt = time
        if verified { adminSessionsByHash[hash]?.verifiedAt = time }
    }

    public func deleteAdminSession(hash: [UInt8]) { adminSessionsByHash[hash] = nil }

    public func purgeAdminSessions(createdBefore: Date, idleBefore: Date, now: Date) -> Int {
        let before = adminSessionsByHash.count + adminInvitesByHash.count
        adminSessionsByHash = adminSessionsByHash.filter { $0.value.createdAt >= createdBefore && $0.value.lastSeenAt >= idleBefore }
        adminInvitesByHash = adminInvitesByHash.filter { $0.value.expiresAt > now }
        return before - adminSessionsByHash.count - adminInvitesByHash.count
    }
}
