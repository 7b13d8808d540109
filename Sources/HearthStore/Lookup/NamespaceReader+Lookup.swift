public import HearthCore

extension NamespaceReader {
    /// The locations lookup index `name` finds under exactly `term`, in key order, at most
    /// `limit` of them.
    public func lookup(_ name: String, term: String, limit: Int = .max) -> [DataPath] {
        var found: [DataPath] = []
        guard limit > 0 else { return found }
        lookup(name, termPrefix: term, after: nil) { match in
            if match.term == term { found.append(match.location) }
            // Terms sharing the prefix sort after the exact one's entries.
            return match.term == term && found.count < limit
        }
        return found
    }

    /// Calls `body` with the entries of lookup index `name` whose term starts with `termPrefix`,
    /// in order of term (by UTF-8 bytes) then location, starting after the entry at `after`
    /// (a `LookupMatch.position`), until `body` returns false or the entries end.
    /// - Returns: false when `after` is not a position under `termPrefix` (nothing was called).
    @discardableResult
    public func lookup(
        _ name: String,
        termPrefix: String,
        after: [UInt8]?,
        _ body: (LookupMatch) -> Bool
    ) -> Bool {
        let nameBytes = Array(name.utf8)
        let base = keys.lookupPrefix([UInt8(truncatingIfNeeded: nameBytes.count)] + nameBytes)
        let prefixBytes = Array(termPrefix.utf8)
        if let after, !after.starts(with: prefixBytes) { return false }
        let scanned = base + prefixBytes
        let cursor = snapshot.makeIterator()
        cursor.seek(after.map { base + $0 } ?? scanned)
        if let after, cursor.hasPrefix(scanned), cursor.keyBytes.elementsEqual(base + after) { cursor.next() }
        while cursor.hasPrefix(scanned) {
            guard let match = Self.match(cursor.keyBytes, base: base.count, payload: Array(cursor.valueBytes)) else {
                cursor.next()
                continue
            }
            if !body(match) { break }
            cursor.next()
        }
        return true
    }

    /// The entry of `key` (after `base` bytes of table, namespace and name), or nil when the
    /// key is not one of an entry.
    static func match(_ key: UnsafeRawBufferPointer, base: Int, payload: [UInt8]) -> LookupMatch? {
        guard let zero = key[base...].firstIndex(of: 0) else { return nil }
        let term = String(decoding: UnsafeRawBufferPointer(rebasing: key[base..<zero]), as: UTF8.self)
        var keys: [ChildKey] = []
        var offset = zero + 1
        while offset < key.count {
            guard let end = KeyEncoding.segmentEnd(key, from: offset), key[offset] != KeyEncoding.priorityMarker
            else { return nil }
            keys.append(KeyEncoding.decodeKey(key, start: offset, end: end))
            offset = end
        }
        return LookupMatch(
            term: term,
            location: DataPath(keys: keys),
            position: Array(UnsafeRawBufferPointer(rebasing: key[base...])),
            payload: payload
        )
    }
}
