public import HearthCore

#if canImport(Glibc)
import Glibc
#endif

/// An index in force in a namespace: its stored id and its definition.
struct RegisteredIndex: Sendable, Hashable {
    let id: UInt32
    let spec: IndexSpec
    /// The key encoding of the index location's part before its first wildcard, as it
    /// follows the namespace's data prefix in a data key.
    let fixedLocation: [UInt8]

    init(id: UInt32, spec: IndexSpec) {
        self.id = id
        self.spec = spec
        var fixed: [ChildKey] = []
        for segment in spec.location {
            guard case .key(let key) = segment else { break }
            fixed.append(key)
        }
        var encoded: [UInt8] = []
        KeyEncoding.append(DataPath(keys: fixed), to: &encoded)
        fixedLocation = encoded
    }

    /// The relative path, under each child, of the indexed value (empty for `.value`).
    var childPath: DataPath {
        switch spec.indexed {
        case .value: return .root
        case .child(let path): return path
        }
    }

    /// True when a write at any of `dataKeys` may change one of `indexes` (false means it
    /// certainly does not): one of them contains the other's fixed location, or lies inside
    /// it (the key encoding is prefix-free: a byte prefix is "contains"). No allocation: this
    /// runs for every write of a namespace with indexes.
    static func mayChange(_ indexes: [RegisteredIndex], at dataKeys: [[UInt8]], keys: KeySpace) -> Bool {
        let start = keys.dataPrefix.count
        for index in indexes {
            let fixed = index.fixedLocation
            for key in dataKeys where key.count >= start {
                let common = min(key.count - start, fixed.count)
                let same = key.withUnsafeBufferPointer { k in
                    fixed.withUnsafeBufferPointer { f in
                        common == 0 || memcmp(k.baseAddress! + start, f.baseAddress!, common) == 0
                    }
                }
                if same { return true }
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
