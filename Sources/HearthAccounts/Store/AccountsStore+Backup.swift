public import HearthStore

extension AccountsStore {
    /// The accounts' database, for a backup's snapshot (read only; nothing else may use it).
    public var databaseForBackup: KeyValueDatabase { database.file.database }
}
