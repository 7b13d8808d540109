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
///
/// The turns run in *passes*: a pass is the turns waiting when it begins (turns handed
/// meanwhile, and writers taken again, are the next pass's). A turn is told whether more of its
/// pass follow it (`followed`): its round's changelog append may then wait for the pass to end
/// (`ReplicationSink.Timing.afterPass`), so the appends of a pass's rounds go to PostgreSQL
/// together, as one commit group, instead of the first alone and the rest after it (decision
/// 0023's addendum). `passEnded` is called after every pass that had a followed turn. A pass
/// holds an append for at most the rounds waiting when it began.
final class SharedWriterThread: Sendable {
    /// One writer's turn: runs one round, true when the writer has more waiting (it is then
    /// taken again after the others), false when it is idle. `followed`: more turns of this
    /// pass run right after it.
    typealias Turn = @Sendable (_ followed: Bool) -> Bool

    private struct State {
        var turns: [Turn] = []
        var scheduled = false
        /// Turns of the pass under way not taken yet (the first of them at the queue's head).
        var passLeft = 0
    }

    private let thread: WriterThread
    private let state = Mutex(State())
    private let passEnded: (@Sendable () -> Void)?

    /// - Parameter passEnded: called on the thread after each pass that had a followed turn
    ///   (`StoreConfiguration.replicatedPassEnded`).
    init(thread: WriterThread = WriterThread(name: "shared"), passEnded: (@Sendable () -> Void)? = nil) {
        self.thread = thread
        self.passEnded = passEnded
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
        // Whether a turn of the pass under way was told it was followed.
        var held = false
        while true {
            let next = state.withLock { state -> (turn: Turn, followed: Bool)? in
                guard !state.turns.isEmpty else {
                    state.scheduled = false
                    return nil
                }
                if state.passLeft == 0 { state.passLeft = state.turns.count }
                state.passLeft -= 1
                return (state.turns.removeFirst(), state.passLeft > 0)
            }
            guard let next else { return }
            if next.followed { held = true }
            let more = next.turn(next.followed)
            if !next.followed, held {
                held = false
                passEnded?()
            }
            if more { state.withLock { $0.turns.append(next.turn) } }
        }
    }
}
