/// Checks `condition` until it holds; throws `ConditionTimeout` after `timeout`. For a state
/// that gives no signal when it changes (a value over REST, a counter): it is checked again
/// after 1 ms, then at growing gaps up to `interval`, so a condition met at once costs no wait
/// and a slow one little CPU. To wait for a message or an event, await it
/// (`RealtimeTestClient.nextMessage`, `SSETestStream.next`, `AsyncInbox`) instead.
public func eventually(
    timeout: Duration = .seconds(10),
    interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    var gap = min(Duration.milliseconds(1), interval)
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ConditionTimeout(timeout: timeout) }
        try await Task.sleep(for: gap)
        gap = min(gap * 2, interval)
    }
}

/// A condition `eventually` (or an `AsyncInbox` wait) waited for did not hold in time.
public struct ConditionTimeout: Error, CustomStringConvertible {
    public let timeout: Duration
    public var description: String { "condition not met within \(timeout)" }
}

/// Reads a value until `done` holds or `timeout` passes, like `eventually`; returns the last
/// value read, for the test to assert on (its failure then shows what was seen).
public func eventually<T>(
    timeout: Duration = .seconds(10),
    interval: Duration = .milliseconds(20),
    _ read: () async throws -> T,
    until done: (T) -> Bool
) async throws -> T {
    var value = try await read()
    do {
        try await eventually(timeout: timeout, interval: interval) {
            if done(value) { return true }
            value = try await read()
            return done(value)
        }
    } catch is ConditionTimeout {}
    return value
}

/// Runs `operation` and waits until it returns, for at most `timeout` (a generous bound for
/// something that should end by itself, such as a graceful shutdown); throws
/// `ConditionTimeout` when it has not returned by then (it keeps running).
public func completes(
    within timeout: Duration,
    _ operation: @escaping @Sendable () async -> Void
) async throws {
    let done = AsyncInbox<Bool>()
    Task {
        await operation()
        done.finish()
    }
    try await done.waitUntilFinished(timeout: timeout)
}
