public import HearthCore
public import HearthStore

extension Database {
    /// A backup of every namespace at this moment (one snapshot of the store), with the
    /// accounts' database, the data directory's `files` and the storage objects (`objects`
    /// makes their source just after the store's snapshot) when given (`BackupStream`).
    public func backup(
        accounts: KeyValueDatabase?,
        files: [(name: String, bytes: [UInt8])] = [],
        objects: (() throws -> any BackupObjectSource)? = nil
    ) throws -> DatabaseBackup {
        DatabaseBackup(stream: try BackupStream(store: store, accounts: accounts, files: files, objects: objects))
    }
}

extension Database {
    /// Each namespace's approximate size on disk (`Store.approximateNamespaceSizes`).
    public func approximateNamespaceSizes() throws -> [String: Int64] {
        try store.approximateNamespaceSizes()
    }
}

/// A backup being read (`Database.backup(accounts:files:objects:)`): every namespace at one snapshot,
/// streamed in chunks while writes go on. Used by one caller at a time; `close()` (or the last
/// reference going) releases the snapshots.
public final class DatabaseBackup: Sendable {
    let stream: BackupStream

    init(stream: BackupStream) {
        self.stream = stream
    }

    /// Each namespace's sequence number at the snapshot.
    public var sequences: [String: UInt64] { stream.header.namespaces }

    /// The next chunk of the backup file, nil at its end. Blocks on the disk: call it off the
    /// event loops.
    public func next() -> [UInt8]? { stream.next() }

    /// Set when a snapshot read failed (a damaged block): the stream stopped without its end
    /// record, so no restore takes what was sent for a whole backup.
    public var failure: StoreError? { stream.failure }

    /// Releases the snapshots.
    public func close() { stream.close() }
}
