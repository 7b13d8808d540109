import Glibc
import HearthCore

/// An index in force in a namespace: its stored id and its definition.
struct RegisteredIndex: Sendable, Hashable {
    let id: UInt32
    let spec: IndexSpec
    /// The key encoding of the index location's part before its first wildcard, as it
    /// follows the namespace's data prefix in a data key.
    let fixedLocation: [UInt8]
    /// The key encoding of `childPath` (empty for `.value`): a child's data key followed by it
    /// is the indexed value's.
    let childPathKey: [UInt8]
    /// The key encoding of each segment of the location: nil for a wildcard.
    let locationSegments: [[UInt8]?]

    init(id: UInt32, spec: IndexSpec) {
        self.id = id
        self.spec = spec
        var fixed: [ChildKey] = []
        for segment in spec.location {
            guard case .key(let key) = segment else { break }
            fixed.append(key)
        }
        fixedLocation = KeyEncoding.encode(DataPath(keys: fixed))
        locationSegments = spec.location.map { segment in
            guard case .key(let key) = segment else { return nil }
            return KeyEncoding.encode(DataPath(keys: [key]))
        }
        if case .child(let path) = spec.indexed { childPathKey = KeyEncoding.encode(path) } else { childPathKey = [] }
    }

    /// The relative path, under each child, of the indexed value (empty for `.value`).
    var childPath: DataPath {
        switch spec.indexed {
        case .value: return .root
        case .child(let path): return path
        }
    }

    /// True when the segments of data key `dataKey` up to `listEnd` (the end of as many
    /// segments as the location has) are a list of this index: each fixed segment equal.
    func isList(_ dataKey: [UInt8], end listEnd: Int) -> Bool {
        dataKey.withUnsafeBytes { bytes in
            var offset = SubtreeShapes.namespacePrefixLength
            for expected in locationSegments {
                guard let end = KeyEncoding.segmentEnd(bytes, from: offset), end <= listEnd else { return false }
                if let expected {
                    let count = end - offset
                    guard expected.count == count,
                        expected.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress! + offset, count) == 0 })
                    else { return false }
                }
                offset = end
            }
            return offset == listEnd
        }
    }

    /// True when a write landing at `locations` may change one of `indexes` (false means it
    /// certainly does not): one of them contains an index's fixed location, or lies inside it.
    static func mayChange(_ indexes: [RegisteredIndex], at locations: WriteLocations, keys: KeySpace) -> Bool {
        indexes.contains { locations.reaches(fixed: $0.fixedLocation, keys: keys) }
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
