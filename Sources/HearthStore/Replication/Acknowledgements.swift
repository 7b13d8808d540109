import Synchronization

/// Runs each round's acknowledgement in the order the rounds were taken (`take`), whichever
/// order their completions arrive in (`complete`): a later round's acknowledgement waits for
/// every earlier one. Completions may arrive on any thread; the acknowledgements run on the
/// thread that completes the round they wait for, one at a time.
final class Acknowledgements: Sendable {
    private struct State {
        var next: UInt64 = 0
        var due: UInt64 = 0
        var ready: [UInt64: @Sendable () -> Void] = [:]
        var running = false
    }

    private let state = Mutex(State())

    /// The next round's place in line.
    func take() -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
    }

    /// Round `ticket` is settled: `acknowledge` runs once every earlier round's did.
    func complete(_ ticket: UInt64, _ acknowledge: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.ready[ticket] = acknowledge
            if state.running { return false }
            state.running = true
            return true
        }
        guard start else { return }
        while true {
            let due = state.withLock { state -> (@Sendable () -> Void)? in
                guard let acknowledge = state.ready.removeValue(forKey: state.due) else {
                    state.running = false
                    return nil
                }
                state.due += 1
                return acknowledge
            }
            guard let due else { return }
            due()
        }
    }
}
