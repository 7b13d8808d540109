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

    public init(
        committed: @escaping @Sendable (_ namespace: String) -> Void = { _ in },
        delivered: @escaping @Sendable (_ namespace: String, _ count: Int) -> Void = { _, _ in },
        refused: @escaping @Sendable (_ namespace: String, _ what: Refusal) -> Void = { _, _ in }
    ) {
        self.committed = committed
        self.delivered = delivered
        self.refused = refused
    }

    /// Reports nothing.
    public static let none = DatabaseActivity()
}
