/// The top level of a shallow read.
public enum ShallowResult: Sendable, Equatable {
    case null
    case leaf(LeafValue)
    /// Children in key order; a leaf child's value, or nil for a child with children.
    case children([(key: ChildKey, leaf: LeafValue?)])

    public static func == (lhs: ShallowResult, rhs: ShallowResult) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.leaf(a), .leaf(b)): return a == b
        case let (.children(a), .children(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.leaf == $1.leaf }
        default: return false
        }
    }
}
