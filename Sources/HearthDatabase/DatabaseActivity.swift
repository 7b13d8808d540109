/// What the database reports as it works, for the server's metrics: called on the threads
/// where things happen (a namespace's writer, its delivery queue, a reader), so each must only
/// count, never block.
public struct DatabaseActivity: Sendable {
    /// What the rules refused.
    public enum Refusal: String, Sendable {
        case read, write
    }

    /// A write committed in a namespace (derived updates and all: one per sequence number).
    public var committed: @Sendable (_ namespace: String) -> Void
    /// `count` updates were handed to listeners of a namespace.
    public var delivered: @Sendable (_ namespace: String, _ count: Int) -> Void
    /// The rules refused a caller a read (a listen included) or a write in a namespace.
    public var refused: @Sendable (_ namespace: String, _ what: Refusal) -> Void
    /// A caller's write was acknowledged (committed and as durable as the sync mode promises)
    /// this long after it was handed to the namespace's writer.
    public var acknowledged: @Sendable (_ namespace: String, _ after: Duration) -> Void
    /// A commit's updates were handed to its listeners this long after it was announced.
    public var fannedOut: @Sendable (_ namespace: String, _ after: Duration) -> Void
    /// The namespace has this many listeners now.
    public var listeners: @Sendable (_ namespace: String, _ count: Int) -> Void

    public init(
        committed: @escaping @Sendable (_ namespace: String) -> Void = { _ in },
        delivered: @escaping @Sendable (_ namespace: String, _ count: Int) -> Void = { _, _ in },
        refused: @escaping @Sendable (_ namespace: String, _ what: Refusal) -> Void = { _, _ in },
        acknowledged: @escaping @Sendable (_ namespace: String, _ after: Duration) -> Void = { _, _ in },
        fannedOut: @escaping @Sendable (_ namespace: String, _ after: Duration) -> Void = { _, _ in },
        listeners: @escaping @Sendable (_ namespace: String, _ count: Int) -> Void = { _, _ in }
    ) {
        self.committed = committed
        self.delivered = delivered
        self.refused = refused
        self.acknowledged = acknowledged
        self.fannedOut = fannedOut
        self.listeners = listeners
    }

    /// Reports nothing.
    public static let none = DatabaseActivity()
}
