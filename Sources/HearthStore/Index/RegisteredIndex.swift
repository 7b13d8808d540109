public import HearthCore

/// An index in force in a namespace: its stored id and its definition.
struct RegisteredIndex: Sendable, Hashable {
    let id: UInt32
    let spec: IndexSpec

    /// The relative path, under each child, of the indexed value (empty for `.value`).
    var childPath: DataPath {
        switch spec.indexed {
        case .value: return .root
        case .child(let path): return path
        }
    }

    /// The data key of the index location's part before its first wildcard. A write changes
    /// the index only at locations whose data key this is a prefix of, or that is a prefix of
    /// it (the key encoding is prefix-free: that is "one location contains the other").
    func fixedLocationKey(in keys: KeySpace) -> [UInt8] {
        var fixed: [ChildKey] = []
        for segment in spec.location {
            guard case .key(let key) = segment else { break }
            fixed.append(key)
        }
        return keys.dataKey(DataPath(keys: fixed))
    }

    /// True when a write at any of `dataKeys` may change one of `indexes` (false means it
    /// certainly does not).
    static func mayChange(_ indexes: [RegisteredIndex], at dataKeys: [[UInt8]], keys: KeySpace) -> Bool {
        for index in indexes {
            let fixed = index.fixedLocationKey(in: keys)
            if dataKeys.contains(where: { KeyBytes.hasPrefix($0, fixed) || KeyBytes.hasPrefix(fixed, $0) }) {
                return true
            }
        }
        return false
    }

    func covers(location: DataPath, order: QueryOrder) -> Bool {
        guard spec.matches(location) else { return false }
        switch (spec.indexed, order) {
        case (.value, .value): return true
        case (.child(let a), .child(let b)): return a == b
        default: return false
        }
    }
}
