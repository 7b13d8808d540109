/// Where a clustered namespace's batches go before anything they hold is acknowledged: the
/// cluster's changelog (HearthCluster's `ClusterDirectory.append`, fenced by the owner's
/// epoch). A store whose namespace has one runs every round of that namespace's writer on its
/// queue, and after the round hands the round's batches (`ReplicatedBatch`, namespace-relative)
/// to `append`; only when that append completes are the round's writes acknowledged and
/// announced. The writer goes on with its next round meanwhile (at most
/// `NamespaceWriter.appendsInFlight` appends at once), and acknowledges rounds in order.
///
/// When an append fails, nothing of its round is acknowledged (each waiting write fails with
/// `StoreError.notOwner`), nor of any later round, and the writer refuses every later write: the
/// node's LevelDB then holds batches the cluster may not have, so it must not serve the
/// namespace from them again (`Store.replicationPosition` tells, and `Store.discardReplica`
/// clears them).
public struct ReplicationSink: Sendable {
    public typealias Completion = @Sendable ((any Error)?) -> Void

    /// When an append must be sent.
    public enum Timing: Sendable, Equatable {
        /// At once.
        case now
        /// It may wait until the pass it was made in ends: on a cluster node every round of the
        /// store's replicated writers runs on one thread, in passes (`SharedWriterThread`), and
        /// more rounds of other namespaces follow this one at once; their appends may go with
        /// it, as one commit group. The end of the pass is told (`ClusterHooks.passEnded`),
        /// after at most the rounds that waited when it began; an append handed over `.now`
        /// meanwhile may take the held ones with it.
        case afterPass
    }

    /// The owner's epoch, kept with the local position (`Store.replicationPosition`).
    public let epoch: UInt64
    /// Appends `batches` at positions `after + 1`, `after + 2`, …, then calls the completion
    /// (on any thread) with nil, or with the error when they are not the namespace's history
    /// (fenced) or it is unknown whether they are (unreachable). Appends are handed over in
    /// position order; each must be taken only after the one before it.
    public let append:
        @Sendable (
            _ batches: [[UInt8]], _ after: UInt64, _ timing: Timing, _ completion: @escaping Completion
        ) -> Void

    public init(
        epoch: UInt64,
        timedAppend append:
            @escaping @Sendable (
                _ batches: [[UInt8]], _ after: UInt64, _ timing: Timing, _ completion: @escaping Completion
            ) -> Void
    ) {
        self.epoch = epoch
        self.append = append
    }

    /// A sink that sends every append at once, whatever its timing.
    public init(
        epoch: UInt64,
        append: @escaping @Sendable (_ batches: [[UInt8]], _ after: UInt64, _ completion: @escaping Completion) -> Void
    ) {
        self.init(epoch: epoch) { batches, after, _, completion in append(batches, after, completion) }
    }

    /// A sink whose appends finish before `append` returns (throwing for a refusal).
    public init(epoch: UInt64, appendNow: @escaping @Sendable (_ batches: [[UInt8]], _ after: UInt64) throws -> Void) {
        self.init(epoch: epoch) { batches, after, completion in
            do {
                try appendNow(batches, after)
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }
}

/// The position of a node's local copy of a namespace in the cluster's changelog: the last
/// entry it holds and the epoch that entry was written under. Two copies at the same position
/// with the same epoch hold the same history (a fenced owner writes nothing after its failed
/// append, and a takeover starts a new epoch at the last committed position).
public struct ReplicationPosition: Sendable, Equatable {
    public let lsn: UInt64
    public let epoch: UInt64

    public init(lsn: UInt64, epoch: UInt64) {
        self.lsn = lsn
        self.epoch = epoch
    }
}

/// One entry of the cluster's changelog, as the store replays it.
public struct ReplicatedEntry: Sendable {
    public let lsn: UInt64
    public let epoch: UInt64
    public let batch: [UInt8]

    public init(lsn: UInt64, epoch: UInt64, batch: [UInt8]) {
        self.lsn = lsn
        self.epoch = epoch
        self.batch = batch
    }
}
