extension InMemoryRepository {
    public func metadataBLOB() -> StoredMetadataBLOB? { metadata }

    public func metadataBLOBNumber() -> Int? { metadata?.number }

    public func storeMetadataBLOB(_ blob: StoredMetadataBLOB, replacing previous: Int?, announcing messages: [WebhookMessageRecord]) -> Bool {
        guard Self.mayStore(blob, stored: metadata?.number, previous: previous) else { return false }
        metadata = blob
        for message in messages { enqueue(message) }
        return true
    }
}
