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
    }

    private let sink: ReplicationSink
    private let keys: KeySpace
    private let state: Mutex<State>

    init(sink: ReplicationSink, keys: KeySpace, position: UInt64) {
        self.sink = sink
        self.keys = keys
        state = Mutex(State(lsn: position))
    }

    /// `output` with every batch counted and kept for the changelog.
    func wrapping(_ output: BatchWriter) -> BatchWriter {
        BatchWriter { [self] batch, kind in
            try state.withLock { state in
                if let refusal = state.refusal { throw refusal }
                guard let encoded = ReplicatedBatch.encode(batch, keys: keys) else {
                    return try output.write(batch, kind)
                }
                let position = ReplicationPosition(lsn: state.lsn + 1, epoch: sink.epoch)
                batch.put(keys.replicationPositionKey, KeySpace.encode(position))
                try output.write(batch, kind)
                state.lsn += 1
                state.pending.append(encoded)
            }
        }
    }

    /// Refuses every later write with `refusal` (the node stopped serving the namespace).
    func refuse(_ refusal: StoreError) {
        state.withLock { if $0.refusal == nil { $0.refusal = refusal } }
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
    /// it took them); from then on every write is refused.
    func flush(_ completion: @escaping @Sendable (StoreError?) -> Void) -> Flush {
        let taken = state.withLock { state -> Result<([[UInt8]], UInt64), StoreError> in
            if let refusal = state.refusal { return .failure(refusal) }
            defer { state.pending = [] }
            return .success((state.pending, state.lsn - UInt64(state.pending.count)))
        }
        let batches: [[UInt8]]
        let after: UInt64
        switch taken {
        case .failure(let refusal): return .refused(refusal)
        case .success(let round): (batches, after) = round
        }
        guard !batches.isEmpty else { return .nothing }
        sink.append(batches, after) { [self] error in
            guard let error else { return completion(nil) }
            let refusal = StoreError(
                .notOwner,
                "This node's commit was not taken into the cluster's changelog (\(error)); retry: the namespace is served by its owner."
            )
            state.withLock { if $0.refusal == nil { $0.refusal = refusal } }
            completion(refusal)
        }
        return .sent
    }
}
