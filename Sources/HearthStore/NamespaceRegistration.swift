/// What makes a namespace exist on disk: its name → id entry, the next free id and the
/// definitions of its indexes. A namespace that does not exist yet lives in memory only and is
/// registered with its first write (data, import, onDisconnect record) or when asked to
/// (`NamespaceStore.create()`): reading it, or being refused, persists nothing.
struct NamespaceRegistration: Sendable {
    let name: String
    let keys: KeySpace
    /// The next free namespace id when the registration is written (above every id handed out).
    let nextFreeID: @Sendable () -> UInt32
    /// Indexes set before the namespace existed; their definitions are written with it (there
    /// is no data to build them over yet).
    var indexes: [RegisteredIndex] = []
    /// The namespace's lookup indexes: empty, so defined (current) from the first write on.
    var lookups: [RegisteredLookup] = []

    /// The batch that registers the namespace.
    func batch() -> WriteBatch {
        let batch = WriteBatch()
        var id: [UInt8] = []
        KeySpace.appendBigEndian(keys.namespaceID, to: &id)
        batch.put(KeySpace.namespaceKey(name), id)
        var next: [UInt8] = []
        KeySpace.appendBigEndian(nextFreeID(), to: &next)
        batch.put(KeySpace.nextNamespaceIDKey, next)
        for index in indexes {
            let definition = Array(IndexDefinitions.encode(index.spec).utf8)
            batch.put(IndexDefinitions.definitionKey(index, keys: keys), definition)
        }
        for lookup in lookups {
            batch.put(keys.lookupDefinitionKey(lookup.index.name), Array(String(lookup.index.version).utf8))
        }
        return batch
    }
}
