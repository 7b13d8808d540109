public import HearthCore
import Synchronization

/// A server clock a test sets and moves by hand (milliseconds since 1970), so that server
/// timestamps and the rules' `now` are known values and a test about time does not sleep.
/// Pass `serverClock` as `HearthServerConfiguration.clock` or to `Store.open`.
public final class ManualClock: Sendable {
    private let milliseconds: Mutex<Double>

    public init(milliseconds: Double = 1_700_000_000_000) {
        self.milliseconds = Mutex(milliseconds)
    }

    /// The time it shows.
    public var now: Double { milliseconds.withLock { $0 } }

    /// Moves the time forward by `delta` milliseconds.
    public func advance(by delta: Double) {
        milliseconds.withLock { $0 += delta }
    }

    /// Sets the time.
    public func set(_ value: Double) {
        milliseconds.withLock { $0 = value }
    }

    /// The clock for the server, the database and the store.
    public var serverClock: ServerClock {
        ServerClock { [self] in now }
    }
}
