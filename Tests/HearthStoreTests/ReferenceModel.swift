import HearthCore

/// The obvious in-memory implementation of Firebase's write semantics, used as the oracle the
/// store is checked against.
enum ReferenceModel {
    static func set(_ root: Node?, _ path: ArraySlice<ChildKey>, _ value: Node?) -> Node? {
        guard let key = path.first else { return value }
        // Deleting below a leaf changes nothing (the SDK's LeafNode.updateChild).
        if value == nil, case .leaf? = root { return root }
        var children: Children
        let priority = root?.priority
        if case .children(let existing, _)? = root { children = existing } else { children = Children() }
        children[key] = set(children[key], path.dropFirst(), value)
        if children.isEmpty { return nil }
        return .children(children, priority: priority)
    }

    static func setPriority(_ root: Node?, _ path: ArraySlice<ChildKey>, _ priority: Priority?) -> Node? {
        guard let root else { return nil }
        guard let key = path.first else { return root.withPriority(priority) }
        guard case .children(var children, let own) = root, let child = children[key] else { return root }
        children[key] = setPriority(child, path.dropFirst(), priority)
        return .children(children, priority: own)
    }
}

/// A small deterministic random generator (SplitMix64), so failures reproduce.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
