import Synchronization

/// The one thread a store's replicated (clustered) writers run their queued rounds on, in turn:
/// one round of a writer, then one of the next writer with work waiting. A cluster node runs
/// every round of its namespaces on their queues (decision 0026), one write in flight per
/// namespace is common (many namespaces, few clients each), and a thread of each writer's own
/// then slept and woke once a round: under 64 namespaces over three nodes a quarter of those
/// threads' time was the switch itself. One thread taking the writers in turn sleeps only when
/// none has work (decision 0028's addendum: nodes' CPU a write 53–54 µs instead of 64–65).
///
/// A round may block the thread (an fsync under `--sync always`, a full changelog window), and
/// the other namespaces' rounds wait meanwhile; they share the node's commits link anyway.
/// Built on `WriterThread`: started when work comes, ended after 2 s without any.
final class SharedWriterThread: Sendable {
    /// One writer's turn: runs one round, true when the writer has more waiting (it is then
    /// taken again after the others), false when it is idle.
    typealias Turn = @Sendable () -> Bool

    private struct State {
        var turns: [Turn] = []
        var scheduled = false
    }

    private let thread: WriterThread
    private let state = Mutex(State())

    init(thread: WriterThread = WriterThread(name: "shared")) {
        self.thread = thread
    }

    /// Takes `turn` after the turns waiting. The caller hands a writer's turn once per time its
    /// work goes from none to some, and its turn is taken again while it returns true, so a
    /// writer waits here at most once.
    func take(_ turn: @escaping Turn) {
        let start = state.withLock { state -> Bool in
            state.turns.append(turn)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if start { thread.wake { self.runTurns() } }
    }

    private func runTurns() {
        while true {
            let next = state.withLock { state -> Turn? in
                guard !state.turns.isEmpty else {
                    state.scheduled = false
                    return nil
                }
                return state.turns.removeFirst()
            }
            guard let next else { return }
            if next() { state.withLock { $0.turns.append(next) } }
        }
    }
}
