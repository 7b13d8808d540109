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

    /// Appends the round's batches to the changelog. When the sink refuses (or cannot say
    /// whether it took them), throws `StoreError.notOwner` and refuses every later write.
    func flush() throws {
        let (batches, after) = try state.withLock { state -> ([[UInt8]], UInt64) in
            if let refusal = state.refusal { throw refusal }
            defer { state.pending = [] }
            return (state.pending, state.lsn - UInt64(state.pending.count))
        }
        guard !batches.isEmpty else { return }
        do {
            try sink.append(batches, after)
        } catch {
            let refusal = StoreError(
                .notOwner,
                "This node's commit was not taken into the cluster's changelog (\(error)); retry: the namespace is served by its owner."
            )
            state.withLock { $0.refusal = refusal }
            throw refusal
        }
    }
}
