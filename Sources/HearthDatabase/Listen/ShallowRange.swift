public import HearthCore
import HearthStore

/// The children an admin's shallow listen follows (`NamespaceEngine.listenShallow`): in key
/// order, after `startAfter`, up to and including `endAt`, at most `limit` of them. Each child is
/// seen as a shallow read shows it: a leaf by its value, a child with children as `true`, so no
/// subtree is ever read or sent.
public struct ShallowRange: Hashable, Sendable {
    public var startAfter: ChildKey?
    public var endAt: ChildKey?
    public var limit: Int

    /// The most children one shallow listen follows (a page of the console is 50).
    public static let maxLimit = 1000

    public init(startAfter: ChildKey? = nil, endAt: ChildKey? = nil, limit: Int) {
        self.startAfter = startAfter
        self.endAt = endAt
        self.limit = limit
    }

    /// The query that names this range in the listen's identifier.
    var query: Query {
        Query(
            order: .key,
            start: startAfter.map { QueryBound(value: .string($0.string)) },
            startIsExclusive: startAfter != nil,
            end: endAt.map { QueryBound(value: .string($0.string)) },
            limit: .first(limit)
        )
    }

    /// The children of `path` in the range, each as a leaf (its value, or `true` for a child
    /// with children); none when `path` is a leaf or has no data.
    func children(at path: DataPath, in reader: NamespaceReader) -> [(key: ChildKey, node: Node)] {
        let result = reader.shallow(at: path, startAfter: startAfter, endAt: endAt, limit: limit)
        guard case .children(let children) = result else { return [] }
        return children.map { ($0.key, .leaf($0.leaf ?? .bool(true), priority: nil)) }
    }
}
