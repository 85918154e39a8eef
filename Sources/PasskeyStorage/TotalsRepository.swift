/// What the dashboard's overview counts.
public struct StorageTotals: Sendable, Hashable {
    public var users: Int
    public var anonymousUsers: Int
    public var passkeys: Int
    public var admins: Int

    public init(users: Int, anonymousUsers: Int, passkeys: Int, admins: Int) {
        self.users = users
        self.anonymousUsers = anonymousUsers
        self.passkeys = passkeys
        self.admins = admins
    }
}

/// Counts over the stored data, for the overview.
public protocol TotalsRepository: Sendable {
    func totals() async throws(StorageError) -> StorageTotals
    /// How many passkeys each of `userIDs` has (users without any are left out).
    func credentialCounts(userIDs: [String]) async throws(StorageError) -> [String: Int]
}
