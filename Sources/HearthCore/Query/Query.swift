/// What children are ordered by in a query.
public enum QueryOrder: Hashable, Sendable {
    case key
    case value
    case priority
    /// A child path relative to each child (`orderByChild("a/b")`).
    case child(DataPath)
}

/// One end of a query range: a value (nil = `null`) and optionally a key name to break ties,
/// as in `startAt(value, name)`.
public struct QueryBound: Hashable, Sendable {
    public var value: LeafValue?
    public var key: ChildKey?

    public init(value: LeafValue?, key: ChildKey? = nil) {
        self.value = value
        self.key = key
    }
}

/// A Firebase query: an order, an optional range and an optional limit. `equalTo` is stored as
/// equal `start` and `end` bounds; `startAfter`/`endBefore` as exclusive bounds.
public struct Query: Hashable, Sendable {
    public var order: QueryOrder
    public var start: QueryBound?
    public var startIsExclusive: Bool
    public var end: QueryBound?
    public var endIsExclusive: Bool
    public var limit: QueryLimit?

    public init(
        order: QueryOrder = .priority,
        start: QueryBound? = nil,
        startIsExclusive: Bool = false,
        end: QueryBound? = nil,
        endIsExclusive: Bool = false,
        limit: QueryLimit? = nil
    ) {
        self.order = order
        self.start = start
        self.startIsExclusive = startIsExclusive
        self.end = end
        self.endIsExclusive = endIsExclusive
        self.limit = limit
    }
}

/// `limitToFirst(n)` or `limitToLast(n)`.
public enum QueryLimit: Hashable, Sendable {
    case first(Int)
    case last(Int)
}
