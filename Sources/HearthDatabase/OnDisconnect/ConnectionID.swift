import Synchronization

/// Identifies one realtime connection, for its onDisconnect operations.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    private static let counter = Atomic<UInt64>(0)

    /// A new identifier, unique within the process.
    public static func unique() -> ConnectionID {
        ConnectionID("c\(counter.wrappingAdd(1, ordering: .relaxed).newValue)")
    }

    public var description: String { rawValue }
}
