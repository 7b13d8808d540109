/// Applies a `Query` to the children of a node the way the Firebase SDK's `RangedFilter` and
/// `LimitedFilter` do: keep children inside the bounds, in the query's order, then keep the
/// first or last `limit` of them.
public enum QueryEvaluator {
    /// The sentinel names the SDK sends as a bound's key (`sn`/`en`), e.g. `[MAX_NAME]` for
    /// `startAfter(value)`; they sort before or after every real key.
    public static let minName = "[MIN_NAME]"
    public static let maxName = "[MAX_NAME]"

    /// The children of `children` that `query` selects, in the query's order.
    public static func apply(_ query: Query, to children: Children) -> [(key: ChildKey, node: Node)] {
        let start = query.start.map {
            Post(bound: $0, isStart: true, exclusive: query.startIsExclusive, order: query.order)
        }
        let end = query.end.map { Post(bound: $0, isStart: false, exclusive: query.endIsExclusive, order: query.order) }
        var selected: [(key: ChildKey, node: Node)] = []
        selected.reserveCapacity(children.count)
        for child in children {
            if let start {
                let c = start.compare(to: child, order: query.order)
                if query.startIsExclusive ? c >= 0 : c > 0 { continue }
            }
            if let end {
                let c = end.compare(to: child, order: query.order)
                if query.endIsExclusive ? c <= 0 : c < 0 { continue }
            }
            selected.append(child)
        }
        if query.order != .key {
            // Children arrive in key order; a stable sort by the ordered value keeps the key
            // tie-break.
            let order = query.order
            selected.sort { NodeOrdering.compare(($0.key, $0.node), ($1.key, $1.node), by: order) < 0 }
        }
        switch query.limit {
        case nil: return selected
        case .first(let n)?: return Array(selected.prefix(max(0, n)))
        case .last(let n)?: return Array(selected.suffix(max(0, n)))
        }
    }

    /// A bound as the SDK's `Index.makePost` builds it: an index value and a name.
    struct Post {
        enum Name {
            case min
            case max
            case key(ChildKey)
        }

        var value: NodeOrdering.IndexValue
        var name: Name

        init(bound: QueryBound, isStart: Bool, exclusive: Bool, order: QueryOrder) {
            if order == .key {
                // KeyIndex.makePost: the bound value is the key; the name is ignored.
                value = .null
                switch bound.value {
                case .string(let s)?: name = .key(ChildKey(s))
                case .number(let n)?: name = .key(ChildKey(JSONRenderer.numberString(n)))
                case .bool(let b)?: name = .key(ChildKey(b ? "true" : "false"))
                case nil: name = isStart ? .min : .max
                }
                return
            }
            value = NodeOrdering.IndexValue(bound.value)
            if let key = bound.key {
                switch key.string {
                case QueryEvaluator.minName: name = .min
                case QueryEvaluator.maxName: name = .max
                default: name = .key(key)
                }
            } else {
                // QueryParams: startAt → MIN_NAME, startAfter → MAX_NAME, endAt → MAX_NAME,
                // endBefore → MIN_NAME.
                name = isStart == exclusive ? .max : .min
            }
        }

        /// Compares this post with a child under `order` (negative: the post sorts first).
        func compare(to child: (key: ChildKey, node: Node?), order: QueryOrder) -> Int {
            if order != .key {
                let childValue: NodeOrdering.IndexValue
                switch order {
                case .priority: childValue = NodeOrdering.IndexValue(child.node?.priority)
                case .value: childValue = NodeOrdering.IndexValue(child.node)
                case .child(let path): childValue = NodeOrdering.IndexValue(child.node?.descendant(path))
                case .key: childValue = .null
                }
                let c = NodeOrdering.compare(value, childValue)
                if c != 0 { return c }
            }
            switch name {
            case .min: return -1
            case .max: return 1
            case .key(let key): return ChildKey.compare(key, child.key)
            }
        }
    }
}
