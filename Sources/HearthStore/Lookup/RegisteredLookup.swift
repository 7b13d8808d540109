import HearthCore

extension LookupTerms {
    /// The terms of `terms` that can be stored, each once, as bytes.
    static func storable(_ terms: [String]) -> Set<[UInt8]> {
        var out = Set<[UInt8]>()
        for term in terms {
            let bytes = Array(term.utf8)
            guard !bytes.isEmpty, bytes.count <= maxBytes, !bytes.contains(0) else { continue }
            out.insert(bytes)
        }
        return out
    }
}

/// A lookup index with its parsed pattern.
struct RegisteredLookup: Sendable {
    let index: any LookupIndex
    let pattern: TriggerPattern
    /// The index's name as bytes, length-prefixed: the part of every entry key after the
    /// namespace (see `KeySpace.lookupPrefix`).
    let nameBytes: [UInt8]

    init(_ index: any LookupIndex) throws {
        let name = Array(index.name.utf8)
        guard !name.isEmpty, name.count <= 64 else {
            throw StoreError(.invalidWrite, "A lookup index's name must be 1 to 64 bytes; '\(index.name)' is not.")
        }
        self.index = index
        pattern = try TriggerPattern(index.pattern)
        nameBytes = [UInt8(name.count)] + name
    }
}
