public import HearthCore

extension NamespaceStore {
    /// Brings the stored lookup indexes in line with the registered ones; the first job of the
    /// namespace's writer when they are not (`init` waits for it). An index whose definition is missing or of another version
    /// is rebuilt from the tree; the entries of one no longer registered are dropped (nothing
    /// kept them in step meanwhile).
    func reconcileLookups(in round: WriteRound) throws {
        guard round.isRegistered else { return }
        let stored = try readNow { LookupBuilder.definitions($0) }
        for (name, _) in stored where !lookups.contains(where: { $0.index.name == name }) {
            try readNow { try round.commitUnsequenced(LookupBuilder.removal(of: name, reader: $0)) }
        }
        for lookup in lookups where stored[lookup.index.name] != String(lookup.index.version) {
            try rebuild(lookup, in: round)
        }
    }

    /// True when the stored lookup definitions are exactly the registered indexes at their
    /// versions (one scan).
    func lookupsAreCurrent() throws -> Bool {
        let stored = try readNow(indexes: []) { LookupBuilder.definitions($0) }
        return LookupBuilder.isCurrent(stored, lookups)
    }

    /// Rebuilds every lookup index from the tree (after an import, which runs no trigger).
    func rebuildLookups(in round: WriteRound) throws {
        for lookup in lookups { try rebuild(lookup, in: round) }
    }

    private func rebuild(_ lookup: RegisteredLookup, in round: WriteRound) throws {
        try readNow { reader in
            try LookupBuilder(lookup: lookup, reader: reader).rebuild { try round.commitUnsequenced($0) }
        }
    }

    /// How the stored entries of lookup index `name` differ from what the tree calls for.
    public struct LookupDisagreement: Sendable, Equatable {
        /// Entries the tree calls for that are not stored.
        public var missing: [LookupMatch]
        /// Entries stored that the tree does not call for.
        public var extra: [LookupMatch]
    }

    /// Compares lookup index `name` with the tree, in one snapshot; nil when no such index is
    /// registered in the namespace.
    public func lookupDisagreement(_ name: String) async throws -> LookupDisagreement? {
        guard let lookup = lookups.first(where: { $0.index.name == name }) else { return nil }
        return try await read { reader in
            let builder = LookupBuilder(lookup: lookup, reader: reader)
            let expected = builder.expectedEntries()
            let stored = builder.storedEntries()
            let base = reader.keys.lookupPrefix(lookup.nameBytes).count
            // An entry with the wrong payload is both: the right one missing, the wrong one extra.
            func matches(_ entries: [[UInt8]: [UInt8]], absentFrom other: [[UInt8]: [UInt8]]) -> [LookupMatch] {
                entries.filter { other[$0.key] != $0.value }.sorted { KeyBytes.precedes($0.key, $1.key) }
                    .compactMap { entry in
                        entry.key.withUnsafeBytes { NamespaceReader.match($0, base: base, payload: entry.value) }
                    }
            }
            return LookupDisagreement(
                missing: matches(expected, absentFrom: stored),
                extra: matches(stored, absentFrom: expected)
            )
        }
    }
}
