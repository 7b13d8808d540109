import Synchronization

/// Counts failed sign-ins per key (an account's email, a client address) in fixed windows:
/// once a key reaches `limit` failures, it is refused until its window ends. Memory stays
/// bounded: expired windows are dropped, and past `maxKeys` the oldest windows go first.
final class FailureLimiter: Sendable {
    private struct Window {
        var start: Double
        var failures: Int
    }

    private let windows = Mutex<[String: Window]>([:])
    let limit: Int
    let window: Double
    let maxKeys: Int

    init(limit: Int, window: Double, maxKeys: Int = 100_000) {
        self.limit = limit
        self.window = window
        self.maxKeys = maxKeys
    }

    /// True when `key` has used up its failures for now.
    func isBlocked(_ key: String, now: Double) -> Bool {
        windows.withLock { windows in
            guard let current = windows[key] else { return false }
            if now >= current.start + window {
                windows[key] = nil
                return false
            }
            return current.failures >= limit
        }
    }

    /// The failures of `key` in its current window.
    func failures(_ key: String, now: Double) -> Int {
        windows.withLock { windows in
            guard let current = windows[key], now < current.start + window else { return 0 }
            return current.failures
        }
    }

    /// Records one failure of `key`.
    func recordFailure(_ key: String, now: Double) {
        windows.withLock { windows in
            if var current = windows[key], now < current.start + window {
                current.failures += 1
                windows[key] = current
                return
            }
            if windows.count >= maxKeys { Self.prune(&windows, now: now, window: window, keep: maxKeys / 2) }
            windows[key] = Window(start: now, failures: 1)
        }
    }

    /// Forgets `key`'s failures (after a successful sign-in).
    func reset(_ key: String) {
        _ = windows.withLock { $0.removeValue(forKey: key) }
    }

    private static func prune(_ windows: inout [String: Window], now: Double, window: Double, keep: Int) {
        windows = windows.filter { now < $0.value.start + window }
        if windows.count > keep {
            let oldest = windows.sorted { $0.value.start < $1.value.start }.prefix(windows.count - keep)
            for (key, _) in oldest { windows[key] = nil }
        }
    }
}
