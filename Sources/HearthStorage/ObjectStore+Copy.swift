/// Copies within the store (Cloud Storage's `copyTo` and `rewriteTo`, which google-cloud-storage's
/// `copy_blob`, `rename_blob` and `rewrite` send).
extension ObjectStore {
    /// Copies `name` of `bucket` to `destination` of `destinationBucket`: a new version whose
    /// file is a hard link to the source's (a version's file is never rewritten, only replaced),
    /// with the source's size, checksums and fields, then `patch` applied (the fields the request
    /// body sets), and a download token of its own. It replaces what `destination` held; copying an
    /// object onto itself makes a new version of it.
    /// - Throws: `StorageError` `.notFound` for a missing source, `.invalidMetadata` when the
    ///   patch makes custom metadata too large, `.io` when the disk refuses (nothing is visible).
    public func copy(
        _ bucket: BucketName,
        _ name: ObjectName,
        to destinationBucket: BucketName,
        _ destination: ObjectName,
        applying patch: MetadataPatch = MetadataPatch()
    ) throws(StorageError) -> ObjectMetadata {
        try changing { () throws(StorageError) in
            let source = try metadata(bucket, name)
            var object = source
            object.bucket = destinationBucket.value
            object.name = destination.value
            object.generation = try nextGeneration()
            object.metageneration = 1
            object.timeCreated = clock()
            object.updated = object.timeCreated
            object.downloadTokens = [Self.newDownloadToken()]
            // A copy's ACL is its own: none, unless the request sets one.
            object.acl = nil
            patch.apply(to: &object)
            try ObjectMetadata.check(custom: object.metadata)
            try share(source.generation, as: object.generation)
            do throws(StorageError) {
                try commitVersion(object)
            } catch  where error.code == .superseded {
                // Made again with a new generation: this one's bytes go.
                files.remove(generation: object.generation)
                discardShared(object.generation)
                throw error
            }
            return object
        }
    }
}
