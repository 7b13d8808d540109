import Synchronization

/// A running byte total shared with `@Sendable` callbacks.
final class ByteCounter: Sendable {
    private let total = Mutex<Int64>(0)

    /// Adds `count` and returns the new total.
    func add(_ count: Int) -> Int64 {
        total.withLock { value in
            value += Int64(count)
            return value
        }
    }

    /// The total so far.
    var value: Int64 { total.withLock { $0 } }

    /// Replaces the total.
    func set(_ value: Int64) {
        total.withLock { $0 = value }
    }
}
