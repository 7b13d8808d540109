import Foundation
import Synchronization

/// A wall clock a test moves forward: the real time plus an offset. The fake FCM and the provider
/// under test share one, so a token's expiry an hour away is reached in an instant.
public final class FakeWallClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    public init() {}

    /// The current time, offset.
    public func now() -> Date {
        Date().addingTimeInterval(offset.withLock { $0 })
    }

    /// Moves the clock forward.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        offset.withLock { $0 += Double(seconds) + Double(attoseconds) * 1e-18 }
    }
}
