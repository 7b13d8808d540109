/// Polls `condition` every `interval` until it holds; throws `ConditionTimeout` after `timeout`.
public func eventually(
    timeout: Duration = .seconds(10),
    interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ConditionTimeout(timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}

/// A condition `eventually` waited for did not hold in time.
public struct ConditionTimeout: Error, CustomStringConvertible {
    public let timeout: Duration
    public var description: String { "condition not met within \(timeout)" }
}
