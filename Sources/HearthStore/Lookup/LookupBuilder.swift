import HearthCore

/// Builds a lookup index from the tree, drops one, and compares one with the tree.
struct LookupBuilder {
    let lookup: RegisteredLookup
    let reader: NamespaceReader
    var keys: KeySpace { reader.keys }

    /// Every entry the tree calls for, with its payload.
    func expectedEntries() -> [[UInt8]: [UInt8]] {
        var entries: [[UInt8]: [UInt8]] = [:]
        PatternLocations(reader: reader).expand(lookup.pattern, storedAt: .root) { location in
            guard let node = reader.node(at: location) else { return }
            let wildcards = lookup.pattern.match(location) ?? [:]
            let (terms, payload) = LookupMaintenance.entries(lookup, node, wildcards)
            for term in terms {
                entries[keys.lookupEntryKey(lookup.nameBytes, term: term, location: location)] = payload
            }
        }
        return entries
    }

    /// Every entry stored, with its payload.
    func storedEntries() -> [[UInt8]: [UInt8]] {
        var entries: [[UInt8]: [UInt8]] = [:]
        reader.scan(keys.lookupPrefix(lookup.nameBytes)) { key, value in entries[Array(key)] = Array(value) }
        return entries
    }

    /// Batches that delete every stored entry, then put every expected one, then record the
    /// definition, each at most about 4 MiB, handed to `commit` in order.
    func rebuild(_ commit: (WriteBatch) throws -> Void) throws {
        var batch = WriteBatch()
        func flushIfFull() throws {
            if batch.byteSize >= 4 << 20 {
                try commit(batch)
                batch = WriteBatch()
            }
        }
        let prefix = keys.lookupPrefix(lookup.nameBytes)
        var deleted = 0
        for key in storedEntries().keys {
            batch.delete(key)
            deleted += 1
            try flushIfFull()
        }
        batch.noteCleared(prefix: prefix, deletedKeys: deleted)
        for (key, payload) in expectedEntries() {
            batch.put(key, payload)
            try flushIfFull()
        }
        batch.put(keys.lookupDefinitionKey(lookup.index.name), Array(String(lookup.index.version).utf8))
        try commit(batch)
    }

    /// A batch removing every entry and the definition of the index named `name` (no longer
    /// registered).
    static func removal(of name: String, reader: NamespaceReader) -> WriteBatch {
        let batch = WriteBatch()
        let nameBytes = Array(name.utf8)
        let prefix = reader.keys.lookupPrefix([UInt8(nameBytes.count)] + nameBytes)
        var deleted = 0
        reader.scan(prefix) { key, _ in
            batch.delete(Array(key))
            deleted += 1
        }
        batch.noteCleared(prefix: prefix, deletedKeys: deleted)
        batch.delete(reader.keys.lookupDefinitionKey(name))
        return batch
    }

    /// True when `stored` (the namespace's definitions) holds exactly `lookups` at their
    /// versions: nothing to rebuild or drop.
    static func isCurrent(_ stored: [String: String], _ lookups: [RegisteredLookup]) -> Bool {
        stored.count == lookups.count
            && lookups.allSatisfy { stored[$0.index.name] == String($0.index.version) }
    }

    /// The stored definitions of the namespace: name → version.
    static func definitions(_ reader: NamespaceReader) -> [String: String] {
        var found: [String: String] = [:]
        let prefix = reader.keys.lookupDefinitionPrefix
        reader.scan(prefix) { key, value in
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: key[prefix.count...]), as: UTF8.self)
            found[name] = String(decoding: value, as: UTF8.self)
        }
        return found
    }
}
