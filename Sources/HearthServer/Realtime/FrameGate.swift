import Synchronization

/// Bounds the frames read from a socket and not yet handled: the reader `enter`s before
/// handing a frame over (waiting while `limit` are outstanding), the loop `leave`s after
/// handling one. So a client cannot queue unbounded work, and its socket stops being read
/// (TCP backpressure) while the connection is busy.
final class FrameGate: Sendable {
    private struct State {
        var outstanding = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits until fewer than `limit` frames are outstanding, then counts one more.
    /// Returns at once when the task is cancelled.
    func enter() async {
        while true {
            let entered = state.withLock { state -> Bool in
                guard state.outstanding < limit else { return false }
                state.outstanding += 1
                return true
            }
            if entered || Task.isCancelled { return }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.outstanding < limit || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }

    /// One frame was handled.
    func leave() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.outstanding -= 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
