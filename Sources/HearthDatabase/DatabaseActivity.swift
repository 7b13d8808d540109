/// What the database reports as it works, for the server's metrics. Each namespace's engine
/// asks once, when it is made, for the reports of its namespace (`namespace`), so that nothing
/// is looked up by name per write or delivery.
public struct DatabaseActivity: Sendable {
    /// The reports of one namespace.
    public var namespace: @Sendable (_ name: String) -> NamespaceActivity

    public init(namespace: @escaping @Sendable (_ name: String) -> NamespaceActivity) {
        self.namespace = namespace
    }

    /// Reports nothing.
    public static let none = DatabaseActivity { _ in NamespaceActivity() }
}

/// What one namespace reports: called on the threads where things happen (its writer, its
/// delivery queue, a reader), so each must only count, never block.
public struct NamespaceActivity: Sendable {
    /// What the rules refused.
    public enum Refusal: String, Sendable {
        case read, write
    }

    /// A write committed (derived updates and all: one per sequence number).
    public var committed: @Sendable () -> Void
    /// `count` updates were handed to listeners.
    public var delivered: @Sendable (_ count: Int) -> Void
    /// The rules refused a caller a read (a listen included) or a write.
    public var refused: @Sendable (_ what: Refusal) -> Void
    /// A caller's write was acknowledged (committed and as durable as the sync mode promises)
    /// this long after it was handed to the namespace's writer.
    public var acknowledged: @Sendable (_ after: Duration) -> Void
    /// A commit's updates were handed to its listeners this long after it was announced.
    public var fannedOut: @Sendable (_ after: Duration) -> Void
    /// The namespace has this many listeners now.
    public var listeners: @Sendable (_ count: Int) -> Void

    public init(
        committed: @escaping @Sendable () -> Void = {},
        delivered: @escaping @Sendable (_ count: Int) -> Void = { _ in },
        refused: @escaping @Sendable (_ what: Refusal) -> Void = { _ in },
        acknowledged: @escaping @Sendable (_ after: Duration) -> Void = { _ in },
        fannedOut: @escaping @Sendable (_ after: Duration) -> Void = { _ in },
        listeners: @escaping @Sendable (_ count: Int) -> Void = { _ in }
    ) {
        self.committed = committed
        self.delivered = delivered
        self.refused = refused
        self.acknowledged = acknowledged
        self.fannedOut = fannedOut
        self.listeners = listeners
    }
}
