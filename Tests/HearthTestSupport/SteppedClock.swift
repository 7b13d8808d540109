import Synchronization

/// A clock whose time moves only when the test moves it (`advance(by:)`), for a wait the
/// server makes on an injected clock (`PresenceConfiguration.clock`): a sleeper is resumed
/// when its deadline is reached, so a window closes exactly when the test says, however busy
/// the machine, and `waitForSleepers` tells the test that the server has begun to wait.
/// `runFree()` ends the stepping (before the server stops, so that its shutdown waits for
/// nobody).
public final class SteppedClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        /// How far the clock has moved since it was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var isFree = false
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Returns once the test has moved the clock to `deadline` (at once after `runFree()`);
    /// throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now || state.isFree || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// How many sleeps are waiting for the clock to move.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until `count` sleeps wait for the clock (the server has begun its wait).
    /// - Throws: `ConditionTimeout` after `timeout`.
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(10)) async throws {
        try await eventually(timeout: timeout, interval: .milliseconds(5)) { sleeperCount >= count }
    }

    /// Moves the clock forward by `duration`, resuming every sleep whose deadline it reaches.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Resumes every sleep, and every later one at once: the clock no longer holds anyone.
    public func runFree() {
        let waiting = state.withLock { state in
            state.isFree = true
            defer { state.sleepers = [:] }
            return state.sleepers.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume() }
    }
}
