import Synchronization

/// Runs the operations given for one key one at a time, in the order they were given (each
/// starts once the one before it for its key has finished, whatever its outcome); operations
/// of different keys run independently.
final class SerialByKey: Sendable {
    private struct Tail {
        /// Finishes after the last operation given for the key.
        var task: Task<Void, Never>
        /// Operations given for the key that have not finished.
        var pending: Int
    }

    private let tails = Mutex<[String: Tail]>([:])

    /// Runs `operation` after the operations given before for `key`; returns its result.
    func run<T: Sendable>(_ key: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = tails.withLock { tails -> Task<T, any Error> in
            let previous = tails[key]
            let task = Task<T, any Error> {
                await previous?.task.value
                // Counted as finished before the caller gets the result, so that `isBusy` is
                // false once `run` has returned (and no later poll skips the key).
                defer { self.finished(key) }
                return try await operation()
            }
            let tail = Task<Void, Never> { _ = await task.result }
            tails[key] = Tail(task: tail, pending: (previous?.pending ?? 0) + 1)
            return task
        }
        return try await task.value
    }

    /// Whether an operation for `key` is running or waiting.
    func isBusy(_ key: String) -> Bool {
        tails.withLock { $0[key] != nil }
    }

    private func finished(_ key: String) {
        tails.withLock { tails in
            guard var tail = tails[key] else { return }
            tail.pending -= 1
            tails[key] = tail.pending == 0 ? nil : tail
        }
    }
}
