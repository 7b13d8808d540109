import Foundation

/// Download tokens added and removed one at a time (the client API's `create_token` and
/// `delete_token`); `update(_:_:with:)` replaces them all.
extension ObjectStore {
    /// Adds a new download token to `name`'s; returns the metadata (`metageneration` + 1).
    /// - Throws: `StorageError` `.notFound`.
    public func addDownloadToken(_ bucket: BucketName, _ name: ObjectName) throws(StorageError) -> ObjectMetadata {
        try changeTokens(bucket, name) { $0.append(Self.newDownloadToken()) }
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
        }
    }

    /// `name`'s metadata with a download token: a new one is added (`metageneration` + 1) when it
    /// has none (its tokens were cleared through the GCS API), as Firebase's client API does on
    /// a metadata GET, so `getDownloadURL` finds one. Concurrent calls add one token between them.
    /// - Throws: `StorageError` `.notFound`.
    public func ensureDownloadToken(_ bucket: BucketName, _ name: ObjectName) throws(StorageError) -> ObjectMetadata {
        try changing { () throws(StorageError) in
            var object = try metadata(bucket, name)
            guard object.downloadTokens.isEmpty else { return object }
            object.downloadTokens = [Self.newDownloadToken()]
            object.metageneration += 1
            object.updated = clock()
            try catalog.commit(object, replacing: nil)
            return object
        }
    }

    static func newDownloadToken() -> String { UUID().uuidString.lowercased() }

    private func changeTokens(
        _ bucket: BucketName,
        _ name: ObjectName,
        _ change: (inout [String]) -> Void
    ) throws(StorageError) -> ObjectMetadata {
        try changing { () throws(StorageError) in
            var object = try metadata(bucket, name)
            change(&object.downloadTokens)
            object.metageneration += 1
            object.updated = clock()
            try catalog.commit(object, replacing: nil)
            return object
        }
    }
}
