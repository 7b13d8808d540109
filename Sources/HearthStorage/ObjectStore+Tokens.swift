import Foundation

/// Download tokens added and removed one at a time (the client API's `create_token` and
/// `delete_token`); `update(_:_:with:)` replaces them all.
extension ObjectStore {
    /// Adds a new download token to `name`'s; returns the metadata (`metageneration` + 1).
    /// - Throws: `StorageError` `.notFound`.
    public func addDownloadToken(_ bucket: BucketName, _ name: ObjectName) throws(StorageError) -> ObjectMetadata {
        try changeTokens(bucket, name) { tokens in
            tokens.append(Self.newDownloadToken())
            return true
        }
    }

    /// Removes `token` from `name`'s download tokens (an unknown token changes nothing); when
    /// none is left a new one is made, so the object keeps a download URL, as Firebase does.
    /// - Throws: `StorageError` `.notFound`.
    public func removeDownloadToken(
        _ token: String,
        from bucket: BucketName,
        _ name: ObjectName
    ) throws(StorageError) -> ObjectMetadata {
        try changeTokens(bucket, name) { tokens in
            tokens.removeAll { $0 == token }
            if tokens.isEmpty { tokens = [Self.newDownloadToken()] }
            return true
        }
    }

    /// `name`'s metadata with a download token: a new one is added (`metageneration` + 1) when it
    /// has none (its tokens were cleared through the GCS API), as Firebase's client API does on
    /// a metadata GET, so `getDownloadURL` finds one. Concurrent calls add one token between them.
    /// - Throws: `StorageError` `.notFound`.
    public func ensureDownloadToken(_ bucket: BucketName, _ name: ObjectName) throws(StorageError) -> ObjectMetadata {
        try changeTokens(bucket, name) { tokens in
            guard tokens.isEmpty else { return false }
            tokens = [Self.newDownloadToken()]
            return true
        }
    }

    static func newDownloadToken() -> String { UUID().uuidString.lowercased() }

    /// Applies `change` to `name`'s download tokens under the store's change lock and commits
    /// the metadata (`metageneration` + 1) when `change` returns true; else returns it as read.
    private func changeTokens(
        _ bucket: BucketName,
        _ name: ObjectName,
        _ change: (inout [String]) -> Bool
    ) throws(StorageError) -> ObjectMetadata {
        try changing { () throws(StorageError) in
            var object = try metadata(bucket, name)
            guard change(&object.downloadTokens) else { return object }
            object.metageneration += 1
            object.updated = clock()
            try catalog.commit(object, replacing: nil)
            return object
        }
    }
}
