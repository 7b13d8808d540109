import HearthStore
import Synchronization

/// A shared log in memory (`SharedLog`, as the cluster's PostgreSQL keeps it): entries by
/// position, compacted entries gone, snapshots' chunks and their head. Hooks let a test step in:
/// `beforeAppend` runs once, before the next append; `beforeChunkRead` before each snapshot
/// chunk is read.
public final class MemorySharedLog: SharedLog {
    public struct State: Sendable {
        public var entries: [Int64: [UInt8]] = [:]
        public var snapshots: [Int64: [Int32: [UInt8]]] = [:]
        public var head: SharedLogSnapshotHead?
        public var beforeAppend: (@Sendable () -> Void)?
        public var beforeChunkRead: (@Sendable (Int64, Int32) -> Void)?
        /// Calls of `entries(after:limit:)` so far.
        public var reads = 0
    }

    public let state = Mutex(State())

    public init() {}

    /// The positions the log holds, in order.
    public var positions: [Int64] { state.withLock { $0.entries.keys.sorted() } }

    /// The positions of the snapshots whose chunks the log holds.
    public var snapshotPositions: [Int64] { state.withLock { $0.snapshots.keys.sorted() } }

    public var head: SharedLogSnapshotHead? { state.withLock { $0.head } }

    public func entries(after position: Int64, limit: Int) throws -> [SharedLogEntry] {
        state.withLock { state in
            state.reads += 1
            return state.entries.keys.filter { $0 > position }.sorted().prefix(limit).map {
                SharedLogEntry(position: $0, batch: state.entries[$0]!)
            }
        }
    }

    public func append(_ batch: [UInt8], at position: Int64) throws -> Bool {
        let hook = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.beforeAppend = nil }
            return state.beforeAppend
        }
        hook?()
        return state.withLock { state in
            let last = state.entries.keys.max() ?? 0
            guard position == last + 1 else { return false }
            state.entries[position] = batch
            return true
        }
    }

    public func snapshotHead() throws -> SharedLogSnapshotHead? { state.withLock { $0.head } }

    public func snapshotChunk(at position: Int64, chunk: Int32) throws -> [UInt8]? {
        let hook = state.withLock { $0.beforeChunkRead }
        hook?(position, chunk)
        return state.withLock { $0.snapshots[position]?[chunk] }
    }

    public func writeSnapshotChunk(_ data: [UInt8], at position: Int64, chunk: Int32) throws {
        state.withLock { $0.snapshots[position, default: [:]][chunk] = data }
    }

    public func publishSnapshot(at position: Int64, chunks: Int32) throws -> Bool {
        state.withLock { state in
            guard state.entries[position] != nil, (state.head?.position ?? 0) < position else {
                if state.head?.position != position { state.snapshots[position] = nil }
                return false
            }
            state.head = SharedLogSnapshotHead(position: position, chunks: chunks)
            return true
        }
    }

    public func compact(entriesBefore: Int64, snapshotsBefore: Int64) throws {
        state.withLock { state in
            state.entries = state.entries.filter { $0.key >= entriesBefore }
            state.snapshots = state.snapshots.filter { $0.key >= snapshotsBefore }
        }
    }
}
