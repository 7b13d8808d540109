public import HearthCore
public import HearthStore

/// What runs with the writes of each namespace, or of all of them: triggers (`TreeTrigger`),
/// lookup indexes (`LookupIndex`) and durable commit observers (`CommitObserver`). Registered
/// before the database opens (`DatabaseConfiguration.triggers`), so no write of a namespace runs
/// without them.
public struct DatabaseTriggers: Sendable {
    /// Which namespaces a trigger, lookup index or observer serves.
    public enum Scope: Hashable, Sendable {
        case allNamespaces
        case namespace(String)

        var store: WriteTriggers.Scope {
            switch self {
            case .allNamespaces: return .allNamespaces
            case .namespace(let name): return .namespace(name)
            }
        }
    }

    /// The store's registry, which the namespaces' writers run: for the offline tools that open
    /// the store themselves (`hearth chat check`, `import`), so they keep the lookup indexes.
    public private(set) var registered = WriteTriggers()

    public init() {}

    /// True when nothing is registered.
    public var isEmpty: Bool { registered.isEmpty }

    /// Adds a trigger.
    /// - Throws: `StoreError` `.invalidWrite` when its pattern is not a path of keys and
    ///   `$name` wildcards.
    public mutating func add(_ trigger: any TreeTrigger, in scope: Scope = .allNamespaces) throws {
        try registered.add(StoreTrigger(trigger: trigger), in: scope.store)
    }

    /// Adds a lookup index.
    /// - Throws: `StoreError` `.invalidWrite` when its pattern is not a path of keys and
    ///   `$name` wildcards, or its name is empty, longer than 64 bytes or taken by another
    ///   in a namespace of `scope`.
    public mutating func add(_ index: any LookupIndex, in scope: Scope = .allNamespaces) throws {
        try registered.add(index, in: scope.store)
    }

    /// Adds an after-commit observer.
    /// - Throws: `StoreError` `.invalidWrite` when its name is empty, longer than 200 bytes,
    ///   or taken by another observer of an overlapping scope.
    public mutating func add(_ observer: any CommitObserver, in scope: Scope = .allNamespaces) throws {
        try registered.add(observer, in: scope.store)
    }

    /// The patterns of the triggers namespace `name` runs, in registration order (what a
    /// deployment serves, for logs and checks).
    public func patterns(of name: String) -> [String] {
        registered.patterns(of: name)
    }
}
