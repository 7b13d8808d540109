public import HearthCore

extension NamespaceStore {
    /// Imports a JSON document at `path` (replacing what is there), streaming: memory stays
    /// bounded by the JSON nesting depth, not the input size. `nextChunk` returns nil at the
    /// end of input; `progress` receives the number of input bytes consumed so far. Not one
    /// atomic write: a failed import leaves what was written before the failure. Indexes are
    /// rebuilt afterwards; the namespace's other writers wait until the import ends.
    public func importJSON(
        at path: DataPath,
        nextChunk: @escaping @Sendable () throws -> [UInt8]?,
        progress: @escaping @Sendable (Int64) -> Void = { _ in }
    ) async throws {
        try await writer.perform { [self] round in
            // Clear the location first, as a set of null would (ancestors that are leaves go too).
            try readNow { reader in
                let batch = WriteBatch()
                _ = try WritePlanner(reader: reader, batch: batch).plan(Write(.set(path, .null)), now: 0)
                var ancestor = path.parent
                while let current = ancestor {
                    let key = keys.dataKey(current)
                    if reader.snapshot.get(key) != nil { batch.delete(key) }
                    ancestor = current.parent
                }
                _ = try round.commit(batch) { CommittedWrite(sequence: $0, location: path, kind: .set(nil)) }
            }
            var parser = JSONEventParser(basePathDepth: path.depth)
            let base = keys.dataKey(path)
            var batch = WriteBatch()
            var consumed: Int64 = 0
            let handler: (JSONEventParser.Event) throws -> Void = { event in
                var key = base
                switch event {
                case .leaf(let relative, let value):
                    for child in relative { KeyEncoding.append(child, to: &key) }
                    batch.put(key, ValueEncoding.encode(value))
                case .priority(let relative, let priority):
                    for child in relative { KeyEncoding.append(child, to: &key) }
                    key.append(KeyEncoding.priorityMarker)
                    batch.put(key, ValueEncoding.encode(priority))
                }
                if batch.byteSize >= 4 << 20 {
                    try round.commitUnsequenced(batch)
                    batch = WriteBatch()
                }
            }
            while let chunk = try nextChunk() {
                try parser.feed(chunk, handler: handler)
                consumed += Int64(chunk.count)
                progress(consumed)
            }
            try parser.finish(handler: handler)
            try round.commitUnsequenced(batch)
            try rebuildIndexes(in: round)
            try rebuildLookups(in: round)
            _ = try round.commit(WriteBatch()) { CommittedWrite(sequence: $0, location: path, kind: .reset) }
        }
    }

    /// Drops and rebuilds every index from the stored data; runs on the writer.
    private func rebuildIndexes(in round: WriteRound) throws {
        for index in registeredIndexes {
            try readNow { try round.commitUnsequenced(IndexDefinitions.removal(of: index, reader: $0)) }
            try readNow { reader in
                try IndexBuilder(reader: reader, index: index) { try round.commitUnsequenced($0) }.build()
            }
            try round.commitUnsequenced(IndexDefinitions.definition(of: index, keys: keys))
        }
    }
}
