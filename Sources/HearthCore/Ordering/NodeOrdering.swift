/// Firebase's ordering of children for queries (the SDK's `KeyIndex`, `PriorityIndex`,
/// `ValueIndex` and `PathIndex`): by the ordered value, ties broken by key.
public enum NodeOrdering {
    /// Negative, zero or positive as `a` sorts before, with or after `b` under `order`.
    public static func compare(
        _ a: (key: ChildKey, node: Node?),
        _ b: (key: ChildKey, node: Node?),
        by order: QueryOrder
    ) -> Int {
        let c: Int
        switch order {
        case .key:
            return ChildKey.compare(a.key, b.key)
        case .priority:
            c = Priority.compare(a.node?.priority, b.node?.priority)
        case .value:
            c = compareValues(a.node, b.node)
        case .child(let path):
            c = compareValues(a.node?.descendant(path), b.node?.descendant(path))
        }
        return c != 0 ? c : ChildKey.compare(a.key, b.key)
    }

    /// Firebase's order of values (`Node.compareTo`): null < false < true < numbers < strings
    /// (by UTF-16 code units) < objects; all objects are equal to each other. Priorities are
    /// not considered.
    public static func compareValues(_ a: Node?, _ b: Node?) -> Int {
        compare(IndexValue(a), IndexValue(b))
    }

    /// The ordered value of a child as an index sees it.
    enum IndexValue {
        case null
        case leaf(LeafValue)
        case object

        init(_ node: Node?) {
            switch node {
            case nil: self = .null
            case .leaf(let value, _)?: self = .leaf(value)
            case .children?: self = .object
            }
        }

        init(_ value: LeafValue?) {
            self = value.map { .leaf($0) } ?? .null
        }

        init(_ priority: Priority?) {
            switch priority {
            case nil: self = .null
            case .number(let n)?: self = .leaf(.number(n))
            case .string(let s)?: self = .leaf(.string(s))
            }
        }
    }

    static func compare(_ a: IndexValue, _ b: IndexValue) -> Int {
        switch (a, b) {
        case (.null, .null), (.object, .object): return 0
        case (.null, _), (_, .object): return -1
        case (_, .null), (.object, _): return 1
        case let (.leaf(x), .leaf(y)): return compareLeaves(x, y)
        }
    }

    /// Leaves: booleans (false < true) < numbers < strings (UTF-16 order).
    static func compareLeaves(_ a: LeafValue, _ b: LeafValue) -> Int {
        switch (a, b) {
        case let (.bool(x), .bool(y)): return x == y ? 0 : (x ? 1 : -1)
        case let (.number(x), .number(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.string(x), .string(y)): return UTF16Order.compare(x, y)
        case (.bool, _): return -1
        case (_, .bool): return 1
        case (.number, _): return -1
        case (_, .number): return 1
        }
    }
}
