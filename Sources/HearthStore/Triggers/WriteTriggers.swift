public import HearthCore

/// The write triggers and commit observers of a store, each for one namespace or for all
/// (`StoreConfiguration.triggers`). Registered before the store opens, so no write of a
/// namespace runs without them.
public struct WriteTriggers: Sendable {
    /// Which namespaces a trigger or an observer serves.
    public enum Scope: Hashable, Sendable {
        case allNamespaces
        case namespace(String)

        func overlaps(_ other: Scope) -> Bool {
            switch (self, other) {
            case (.namespace(let a), .namespace(let b)): return a == b
            default: return true
            }
        }

        func includes(_ name: String) -> Bool {
            switch self {
            case .allNamespaces: return true
            case .namespace(let only): return only == name
            }
        }
    }

    private var triggers: [(trigger: any WriteTrigger, pattern: TriggerPattern, scope: Scope)] = []
    private var observers: [(observer: any CommitObserver, scope: Scope)] = []
    private var lookups: [(lookup: RegisteredLookup, scope: Scope)] = []

    public init() {}

    /// True when nothing is registered.
    public var isEmpty: Bool { triggers.isEmpty && observers.isEmpty && lookups.isEmpty }

    /// Adds a trigger.
    /// - Throws: `StoreError` `.invalidWrite` when its pattern is not a path of keys and
    ///   `$name` wildcards.
    public mutating func add(_ trigger: any WriteTrigger, in scope: Scope = .allNamespaces) throws {
        triggers.append((trigger, try TriggerPattern(trigger.pattern), scope))
    }

    /// Adds an after-commit observer.
    /// - Throws: `StoreError` `.invalidWrite` when its name is empty, longer than 200 bytes,
    ///   or taken by another observer of an overlapping scope.
    public mutating func add(_ observer: any CommitObserver, in scope: Scope = .allNamespaces) throws {
        let name = observer.name
        guard !name.isEmpty, name.utf8.count <= 200 else {
            throw StoreError(.invalidWrite, "A commit observer's name must be 1 to 200 bytes; '\(name)' is not.")
        }
        if observers.contains(where: { $0.observer.name == name }) {
            throw StoreError(
                .invalidWrite,
                "Two commit observers are named '\(name)': the name keys its cursor, so give each its own."
            )
        }
        observers.append((observer, scope))
    }

    /// Adds a lookup index (see `LookupIndex`).
    /// - Throws: `StoreError` `.invalidWrite` when its pattern is not a path of keys and
    ///   `$name` wildcards, or its name is empty, longer than 64 bytes or taken by another
    ///   in a namespace of `scope`.
    public mutating func add(_ index: any LookupIndex, in scope: Scope = .allNamespaces) throws {
        if lookups.contains(where: { $0.lookup.index.name == index.name && $0.scope.overlaps(scope) }) {
            throw StoreError(
                .invalidWrite,
                "Two lookup indexes are named '\(index.name)': the name keys their entries, so give each its own."
            )
        }
        lookups.append((try RegisteredLookup(index), scope))
    }

    /// The lookup indexes of namespace `name`.
    func lookups(of name: String) -> [RegisteredLookup] {
        lookups.filter { $0.scope.includes(name) }.map(\.lookup)
    }

    /// The triggers of namespace `name`, in registration order.
    func triggers(of name: String) -> [NamespaceTrigger] {
        triggers.filter { $0.scope.includes(name) }.map { NamespaceTrigger(trigger: $0.trigger, pattern: $0.pattern) }
    }

    /// The patterns of the triggers namespace `name` runs, in registration order (what a
    /// deployment serves, for logs and checks).
    public func patterns(of name: String) -> [String] {
        triggers.filter { $0.scope.includes(name) }.map(\.trigger.pattern)
    }

    /// The commit observers of namespace `name`.
    func observers(of name: String) -> [any CommitObserver] {
        observers.filter { $0.scope.includes(name) }.map(\.observer)
    }
}

/// A trigger with its parsed pattern.
struct NamespaceTrigger: Sendable {
    let trigger: any WriteTrigger
    let pattern: TriggerPattern
}
