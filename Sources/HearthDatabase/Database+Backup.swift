public import HearthStore

extension Database {
    /// A backup of every namespace at this moment (one snapshot of the store), with the
    /// accounts' database and the data directory's `files` when given (`BackupStream`).
    public func backup(
        accounts: KeyValueDatabase?,
        files: [(name: String, bytes: [UInt8])] = []
    ) throws -> BackupStream {
        try BackupStream(store: store, accounts: accounts, files: files)
    }
}

extension Database {
    /// Each namespace's approximate size on disk (`Store.approximateNamespaceSizes`).
    public func approximateNamespaceSizes() throws -> [String: Int64] {
        try store.approximateNamespaceSizes()
    }
}
