import Synchronization

/// The writes a `NamespaceWriter` has staged in the current round: one batch for all of them,
/// and the data keys they touch, so a later write can tell whether it could have read them.
/// Touched only on the writer.
final class StagedWrites {
    /// Whether the group reached LevelDB; read by each staged write's completion.
    final class Outcome: Sendable {
        private let failure = Mutex<(any Error)?>(nil)

        /// Set (on the writer, before any completion runs) when applying the group failed.
        var error: (any Error)? {
            get { failure.withLock { $0 } }
            set { failure.withLock { $0 = newValue } }
        }
    }

    /// A group holds at most this many writes and about this many bytes; a write that would
    /// pass either limit is applied on its own after the group.
    static let maxWrites = 64
    static let maxBytes = 1 << 20

    /// The first staged write's own batch (not a copy), the others' appended to it.
    private(set) var batch = WriteBatch()
    let outcome = Outcome()
    /// The writer's sequence number and announced commits before the first staged write.
    let sequenceBefore: UInt64
    let announcedBefore: Int
    private var touched: [[UInt8]] = []
    private var writes = 0

    init(sequenceBefore: UInt64, announcedBefore: Int) {
        self.sequenceBefore = sequenceBefore
        self.announcedBefore = announcedBefore
    }

    /// True when a write touching `keys` with `batch` may join: the group has room and no
    /// key of the group is a prefix of one of `keys` or the other way round (the key encoding
    /// is prefix-free, so that is exactly "one location contains the other").
    func admits(_ keys: [[UInt8]], batch: WriteBatch) -> Bool {
        guard writes < Self.maxWrites, self.batch.byteSize + batch.byteSize <= Self.maxBytes else { return false }
        return !overlaps(keys)
    }

    /// True when a staged location contains or lies inside one of `keys`.
    func overlaps(_ keys: [[UInt8]]) -> Bool {
        for key in keys {
            for other in touched where Self.related(key, other) { return true }
        }
        return false
    }

    /// - Parameter batch: the write's batch, the group's from now on (its owner drops it).
    func add(_ batch: WriteBatch, touching keys: [[UInt8]]) {
        if writes == 0 { self.batch = batch } else { self.batch.append(batch) }
        touched += keys
        writes += 1
    }

    private static func related(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count <= b.count ? KeyBytes.hasPrefix(b, a) : KeyBytes.hasPrefix(a, b)
    }
}
