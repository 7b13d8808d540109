import HearthCore
import Synchronization

/// A clustered namespace's writer's side of replication: every batch the writer writes is
/// encoded for the changelog (`ReplicatedBatch`) and counted with the next position, kept
/// until the round ends, then handed to the sink (`flush`). The local position
/// (`KeySpace.replicationPositionKey`) is written in each batch, so LevelDB always says which
/// entries it holds.
final class ReplicationCapture: Sendable {
    private struct State {
        /// The position of the last batch written locally.
        var lsn: UInt64
        /// Batches written locally this round, not yet appended.
        var pending: [[UInt8]] = []
        /// Set once an append failed: every later write is refused with it.
        var refusal: StoreError?
        /// An append is in flight: rounds flushed meanwhile wait in `waiting` and go together,
        /// as one append, when it completes (the commit group is whatever queued while the
        /// previous commit was in flight).
        var sending = false
        var waiting: [(batches: [[UInt8]], after: UInt64, completion: @Sendable (StoreError?) -> Void)] = []
        /// The position of the last batch the changelog holds: everything up to it is committed.
        var durable: UInt64
        /// Reads waiting for the changelog to hold the position they read (`durable(through:)`).
        var readers: [(position: UInt64, resume: @Sendable (StoreError?) -> Void)] = []
    }

    private let sink: ReplicationSink
    private let keys: KeySpace
    private let state: Mutex<State>

    init(sink: ReplicationSink, keys: KeySpace, position: UInt64) {
        self.sink = sink
        self.keys = keys
        // What the local copy holds when the namespace opens came from the changelog (a
        // takeover catches up from it first), so it is all committed.
        state = Mutex(State(lsn: position, durable: position))
    }

    /// Calls `resume` once the changelog holds every batch up to `position` (at once when it
    /// already does), or with the refusal when an append failed first: a read of the local copy
    /// waits so, because the copy holds a round while its append is in flight, and that round
    /// may yet be refused. On any thread.
    func durable(through position: UInt64, _ resume: @escaping @Sendable (StoreError?) -> Void) {
        let now = state.withLock { state -> StoreError?? in
            if position <= state.durable { return .some(nil) }
            if let refusal = state.refusal { return .some(refusal) }
            state.readers.append((position, resume))
            return .none
        }
        if let now { resume(now) }
    }

    /// Moves the committed position to `position` and lets the reads it covers go on; once the
    /// writer refuses, fails every other waiting read (nothing past the committed position will
    /// commit).
    private func settleReaders(committed position: UInt64?) {
        typealias Resume = @Sendable (StoreError?) -> Void
        let due = state.withLock { state -> [(Resume, StoreError?)] in
            if let position, position > state.durable { state.durable = position }
            let durable = state.durable
            let failure = state.refusal
            var due: [(Resume, StoreError?)] = []
            state.readers.removeAll { reader in
                if reader.position <= durable {
                    due.append((reader.resume, nil))
                } else if let failure {
                    due.append((reader.resume, failure))
                } else {
                    return false
                }
                return true
            }
            return due
        }
        for (resume, error) in due { resume(error) }
    }

    /// `output` with every batch counted and kept for the changelog.
    ///
    /// Only the writer writes, one batch at a time, and only it moves `lsn` and fills `pending`
    /// (its rounds, `flush`); so the batch is encoded and written to LevelDB outside the lock,
    /// which the commits' completions take on their event loop (`settleReaders`,
    /// `sendWaiting`): a large batch (a chat message's) held them waiting, spinning on the
    /// lock, for as long as LevelDB took. A refusal set meanwhile fails the round at `flush`.
    func wrapping(_ output: BatchWriter) -> BatchWriter {
        BatchWriter { [self] batch, kind in
            let (lsn, refusal) = state.withLock { ($0.lsn, $0.refusal) }
            if let refusal { throw refusal }
            guard let encoded = ReplicatedBatch.encode(batch, keys: keys) else {
                return try output.write(batch, kind)
            }
            let position = ReplicationPosition(lsn: lsn + 1, epoch: sink.epoch)
            batch.put(keys.replicationPositionKey, KeySpace.encode(position))
            try output.write(batch, kind)
            state.withLock { state in
                state.lsn = lsn + 1
                state.pending.append(encoded)
            }
        }
    }

    /// Refuses every later write with `refusal` (the node stopped serving the namespace).
    func refuse(_ refusal: StoreError) {
        state.withLock { if $0.refusal == nil { $0.refusal = refusal } }
        settleReaders(committed: nil)
    }

    enum Flush {
        /// The round wrote nothing to append: nothing to wait for.
        case nothing
        /// The writer already refuses (an earlier append failed): the round fails with it.
        case refused(StoreError)
        /// Sent: the completion tells how it went.
        case sent
    }

    /// Appends the round's batches to the changelog, then calls `completion` (on any thread)
    /// with nil, or with `StoreError.notOwner` when the sink refused them (or cannot say whether
    /// it took them); from then on every write is refused. While an append is in flight the
    /// round waits, and goes with every other round that waited, in one append. `timing`: when
    /// the sink must send the append, if it goes now (one that waited goes `.now`).
    func flush(
        _ timing: ReplicationSink.Timing,
        _ completion: @escaping @Sendable (StoreError?) -> Void
    ) -> Flush {
        let outcome = state.withLock { state -> (Flush, send: Bool) in
            if let refusal = state.refusal { return (.refused(refusal), false) }
            guard !state.pending.isEmpty else { return (.nothing, false) }
            state.waiting.append((state.pending, state.lsn - UInt64(state.pending.count), completion))
            state.pending = []
            if state.sending { return (.sent, false) }
            state.sending = true
            return (.sent, true)
        }
        if outcome.send { sendWaiting(timing) }
        return outcome.0
    }

    /// Sends every waiting round as one append; when it completes, tells each round, then sends
    /// what waited meanwhile.
    private func sendWaiting(_ timing: ReplicationSink.Timing) {
        let rounds = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        guard let first = rounds.first else {
            state.withLock { $0.sending = false }
            return
        }
        let batches = rounds.flatMap(\.batches)
        let through = first.after + UInt64(batches.count)
        sink.append(batches, first.after, timing) { [self] error in
            var refusal: StoreError?
            if let error {
                let refused = StoreError(
                    .notOwner,
                    "This node's commit was not taken into the cluster's changelog (\(error)); retry: the namespace is served by its owner."
                )
                refusal = refused
                state.withLock { if $0.refusal == nil { $0.refusal = refused } }
            }
            // Reads go on before the writes are acknowledged: a client told its write is done
            // then finds no read held up behind it.
            settleReaders(committed: refusal == nil ? through : nil)
            for round in rounds { round.completion(refusal) }
            let more = state.withLock { state -> Bool in
                if state.waiting.isEmpty {
                    state.sending = false
                    return false
                }
                return true
            }
            if more {
                if let refusal {
                    // Later rounds were planned on the refused ones: they fail too.
                    let rest = state.withLock { state in
                        defer {
                            state.waiting = []
                            state.sending = false
                        }
                        return state.waiting
                    }
                    for round in rest { round.completion(refusal) }
                } else {
                    // Nothing of a pass: what waited goes at once.
                    sendWaiting(.now)
                }
            }
        }
    }
}
