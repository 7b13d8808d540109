/// The callables a server serves, each in every namespace or in the ones named
/// (`HearthServerConfiguration.callables`), and what runs when an account is deleted
/// (`AccountDeletionHandler`, per namespace). In a namespace without a callable of a name, a
/// call of that name answers `NOT_FOUND`.
public struct Callables: Sendable {
    /// Which namespaces serve a callable.
    public enum Scope: Hashable, Sendable {
        case allNamespaces
        case namespaces(Set<String>)

        /// One namespace.
        public static func namespace(_ name: String) -> Scope { .namespaces([name]) }

        func includes(_ name: String) -> Bool {
            switch self {
            case .allNamespaces: return true
            case .namespaces(let names): return names.contains(name)
            }
        }
    }

    private var entries: [(callable: any Callable, scope: Scope)] = []
    private var deletionHandlers: [(handler: any AccountDeletionHandler, namespaces: Set<String>)] = []

    public init() {}

    /// True when nothing is registered.
    public var isEmpty: Bool { entries.isEmpty && deletionHandlers.isEmpty }

    /// Runs `handler` in each of `namespaces` when an account is deleted.
    public mutating func add(_ handler: any AccountDeletionHandler, in namespaces: Set<String>) {
        deletionHandlers.append((handler, namespaces))
    }

    /// The account-deletion handlers with their namespaces, in registration order.
    public var accountDeletionHandlers: [(handler: any AccountDeletionHandler, namespace: String)] {
        deletionHandlers.flatMap { entry in entry.namespaces.sorted().map { (entry.handler, $0) } }
    }

    /// Registers `callable` for the namespaces of `scope`.
    /// - Throws: `CallableError` (`INVALID_ARGUMENT`) when its name is not 1 to 128 letters,
    ///   digits, `-` or `_`, or when another callable of that name serves one of those
    ///   namespaces.
    public mutating func add(_ callable: any Callable, in scope: Scope = .allNamespaces) throws(CallableError) {
        let name = callable.name
        guard Self.isValidName(name) else {
            throw .invalidArgument("Invalid callable name '\(name)': use 1 to 128 letters, digits, '-' or '_'.")
        }
        for entry in entries where entry.callable.name == name && Self.overlap(entry.scope, scope) {
            throw .invalidArgument("Two callables are named '\(name)' in the same namespace: give each its own name.")
        }
        entries.append((callable, scope))
    }

    /// The callable named `name` in namespace `namespace`, if one is registered there.
    public func callable(named name: String, in namespace: String) -> (any Callable)? {
        entries.first { $0.callable.name == name && $0.scope.includes(namespace) }?.callable
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    private static func overlap(_ a: Scope, _ b: Scope) -> Bool {
        switch (a, b) {
        case (.allNamespaces, _), (_, .allNamespaces): return true
        case let (.namespaces(x), .namespaces(y)): return !x.isDisjoint(with: y)
        }
    }
}
