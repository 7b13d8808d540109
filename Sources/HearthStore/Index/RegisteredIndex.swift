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

    func covers(location: DataPath, order: QueryOrder) -> Bool {
        guard spec.matches(location) else { return false }
        switch (spec.indexed, order) {
        case (.value, .value): return true
        case (.child(let a), .child(let b)): return a == b
        default: return false
        }
    }
}
