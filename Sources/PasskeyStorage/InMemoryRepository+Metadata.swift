extension InMemoryRepository {
    public func metadataBLOB() -> StoredMetadataBLOB? { metadata }

    public func storeMetadataBLOB(_ blob: StoredMetadataBLOB) -> Bool {
        if let current = metadata, current.number >= blob.number { return false }
        metadata = blob
        return true
    }
}
