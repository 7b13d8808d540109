import HearthCore

/// Persistence of index definitions: `X` + nsId + indexId → location segments joined by `/`
/// (wildcards keep their `$`), a newline, then `.value` or the child path.
enum IndexDefinitions {
    static func load(_ reader: NamespaceReader) -> [RegisteredIndex] {
        var result: [RegisteredIndex] = []
        let prefix = reader.keys.indexDefinitionPrefix()
        reader.scan(prefix) { key, value in
            guard key.count == prefix.count + 4 else { return }
            let id = KeySpace.decodeBigEndian(key[prefix.count...])
            let text = String(decoding: value, as: UTF8.self)
            if let spec = decode(text) { result.append(RegisteredIndex(id: id, spec: spec)) }
        }
        return result
    }

    static func encode(_ spec: IndexSpec) -> String {
        let location = spec.location.map { segment -> String in
            switch segment {
            case .key(let key): return key.string
            case .wildcard(let name): return name.hasPrefix("$") ? name : "$" + name
            }
        }.joined(separator: "/")
        switch spec.indexed {
        case .value: return location + "\n.value"
        case .child(let path): return location + "\n" + path.keys.map(\.string).joined(separator: "/")
        }
    }

    static func decode(_ text: String) -> IndexSpec? {
        let parts = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let location = parts[0].split(separator: "/").map { part -> IndexSpec.Segment in
            part.hasPrefix("$") ? .wildcard(String(part)) : .key(ChildKey(String(part)))
        }
        if parts[1] == ".value" { return IndexSpec(location: location, indexed: .value) }
        let child = DataPath(keys: parts[1].split(separator: "/").map { ChildKey(String($0)) })
        return IndexSpec(location: location, indexed: .child(child))
    }

    static func definitionKey(_ index: RegisteredIndex, keys: KeySpace) -> [UInt8] {
        var key = keys.indexDefinitionPrefix()
        KeySpace.appendBigEndian(index.id, to: &key)
        return key
    }

    static func definition(of index: RegisteredIndex, keys: KeySpace) -> WriteBatch {
        let batch = WriteBatch()
        batch.put(definitionKey(index, keys: keys), Array(encode(index.spec).utf8))
        return batch
    }

    /// A batch deleting the index's definition, every entry of it and every list marker.
    static func removal(of index: RegisteredIndex, reader: NamespaceReader) -> WriteBatch {
        let batch = WriteBatch()
        batch.delete(definitionKey(index, keys: reader.keys))
        for prefix in [reader.keys.indexPrefix(index.id), reader.keys.keptListPrefix(index.id)] {
            var deleted = 0
            reader.scan(prefix) { key, _ in
                batch.delete(Array(key))
                deleted += 1
            }
            batch.noteCleared(prefix: prefix, deletedKeys: deleted)
        }
        batch.noteKeptListsChanged()
        return batch
    }
}
