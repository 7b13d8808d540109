import HearthCore

/// Keeps a namespace's lookup indexes in step with one planned write: for every indexed
/// location the write changes, the terms of the value before and after, and the entries that
/// differ (deleted or put in the write's batch).
struct LookupMaintenance {
    let lookups: [RegisteredLookup]
    let reader: NamespaceReader

    /// What a write changes in the lookup indexes.
    struct Changes {
        var deletes: [[UInt8]] = []
        var puts: [(key: [UInt8], payload: [UInt8])] = []
        /// The indexed locations read (their values before the write): a write staged in the
        /// same round at, above or below one of them could change the outcome.
        var reads: [DataPath] = []

        /// Every entry key deleted or put.
        var keys: [[UInt8]] { deletes + puts.map(\.key) }

        func apply(to batch: WriteBatch) {
            for key in deletes { batch.delete(key) }
            for put in puts { batch.put(put.key, put.payload) }
        }
    }

    /// The changes of `write` (with its resolved `values`; `locations`: where it lands, when
    /// worked out); nil when it reaches no indexed location.
    func changes(for write: Write, values: [Node?], locations: WriteLocations? = nil) -> Changes? {
        let reached = lookups.filter { lookup in
            // The sorted keys rule most writes out at once (a chat message's hundreds of
            // counters), before the walk over every entry's path.
            if let locations, !locations.reaches(fixed: lookup.pattern.fixedLocation, keys: reader.keys) {
                return false
            }
            return write.reaches(lookup.pattern)
        }
        guard !reached.isEmpty else { return nil }
        let overlay = WriteOverlay(write, values: values, reader: reader)
        let finder = PatternLocations(reader: reader)
        var changes = Changes()
        for lookup in reached {
            for location in finder.locations(of: lookup.pattern, changedBy: overlay) {
                changes.reads.append(location)
                let wildcards = lookup.pattern.match(location) ?? [:]
                let before = reader.node(at: location).map { Self.entries(lookup, $0, wildcards) }
                let after = overlay.value(at: location).map { Self.entries(lookup, $0, wildcards) }
                let (oldTerms, newTerms) = (before?.terms ?? [], after?.terms ?? [])
                let keys = reader.keys
                for term in oldTerms.subtracting(newTerms) {
                    changes.deletes.append(keys.lookupEntryKey(lookup.nameBytes, term: term, location: location))
                }
                // A changed payload rewrites every entry; otherwise only the new terms are put.
                let rewritten = before?.payload == after?.payload ? newTerms.subtracting(oldTerms) : newTerms
                for term in rewritten {
                    let key = keys.lookupEntryKey(lookup.nameBytes, term: term, location: location)
                    changes.puts.append((key, after?.payload ?? []))
                }
            }
        }
        return changes
    }

    /// The storable terms of `node` and the payload their entries carry.
    static func entries(
        _ lookup: RegisteredLookup,
        _ node: Node,
        _ wildcards: [String: String]
    ) -> (terms: Set<[UInt8]>, payload: [UInt8]) {
        let terms = LookupTerms.storable(lookup.index.terms(of: node, wildcards: wildcards))
        guard !terms.isEmpty else { return (terms, []) }
        return (terms, Array(lookup.index.payload(of: node, wildcards: wildcards).prefix(LookupTerms.maxPayloadBytes)))
    }
}
