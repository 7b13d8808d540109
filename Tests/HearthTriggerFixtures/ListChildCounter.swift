public import HearthCore
public import HearthDatabase

/// The end-to-end tests' trigger: `/lists/<list>/count` follows the number of children of
/// `/lists/<list>/items`.
public struct ListChildCounter: TreeTrigger {
    public init() {}

    public var pattern: String { "/lists/$list/items/$item" }

    public func updates(for change: TreeChange) throws -> [DerivedUpdate] {
        let counter = DataPath(keys: [ChildKey("lists"), ChildKey(change.wildcards["list"]!), ChildKey("count")])
        switch (change.before, change.after) {
        case (nil, _?): return [.increment(counter, by: 1)]
        case (_?, nil): return [.increment(counter, by: -1)]
        default: return []
        }
    }
}
