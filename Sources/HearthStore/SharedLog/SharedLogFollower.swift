import Dispatch
import Synchronization

/// How a node's copy of a shared log (the accounts', the storage catalog's) follows the log and
/// keeps it bounded; the copy's store supplies its rows and applies batches.
///
/// - **Catching up** reads the entries after the copy's position a page at a time and applies
///   each batch with the position it reaches.
/// - **Installing**: when the entry after the copy's position is gone (compacted away), the
///   copy becomes the newest snapshot: it applies, as one batch, the difference between its
///   rows and the snapshot's, then catches up from there. A snapshot replaced while it was read
///   is read again (the newer one).
/// - **Snapshots**: once the log has gathered `snapshotEntries` entries past its newest
///   snapshot, the copy that reaches that point stores its rows as a new snapshot (read on the
///   caller's thread, at the position just reached; stored in the background), and the log
///   drops the entries before the previous snapshot and older snapshots' chunks. Entries from
///   the previous snapshot on stay, so a copy less than one snapshot behind replays instead of
///   installing, and a copy further behind always finds a gap (the entry after its position is
///   missing), never an empty page that looks like the end.
public final class SharedLogFollower: Sendable {
    public typealias Change = SharedLogBatch.Change

    public let log: any SharedLog
    /// Entries the log gathers past its newest snapshot before a copy takes another.
    public let snapshotEntries: Int64
    /// Entries the log gathers past its newest snapshot before a copy takes another, unless a
    /// store is told otherwise (`--snapshot-entries`).
    public static let defaultSnapshotEntries: Int64 = 50_000

    /// Entries read per query while catching up.
    static let page = 256
    /// The bytes a snapshot chunk holds at most (one larger row makes a chunk of its own).
    static let chunkBytes = 1 << 20
    /// How often an install starts again when a newer snapshot replaced the one it was reading.
    static let installAttempts = 8

    private struct State {
        /// The newest snapshot's position as last seen (0: none seen yet).
        var newestSnapshot: Int64 = 0
        /// A snapshot is being stored.
        var taking = false
    }

    private let state = Mutex(State())
    private let background = DispatchQueue(label: "hearth.shared-log.snapshots", qos: .utility)

    /// The log did not answer (or failed); the copy is unchanged past its last applied batch.
    public struct Unavailable: Error, CustomStringConvertible {
        public var underlying: any Error
        public var description: String { "\(underlying)" }
    }

    /// The log holds nothing this copy can apply at `position`: a batch of another layout, or
    /// entries gone without a snapshot past them.
    public struct Unreadable: Error {
        public var position: Int64
    }

    public init(log: any SharedLog, snapshotEntries: Int64 = defaultSnapshotEntries) {
        self.log = log
        self.snapshotEntries = max(1, snapshotEntries)
    }

    /// The newest snapshot's position as this follower last saw it (0: none).
    public var newestSnapshot: Int64 { state.withLock { $0.newestSnapshot } }

    /// Where a store's copy starts following the log.
    public enum Start: Equatable, Sendable {
        /// From this position (0: an empty copy).
        case follow(Int64)
        /// The copy seeded the empty log with its rows, as its entry 1.
        case seeded
        /// The copy is not this log's (another cluster's, or compacted past it, or a single
        /// server's joining a cluster that has data): it must be cleared, then follow from 0.
        case clear
    }

    /// Where a copy that holds the log position `stored` (nil: it never was a copy) and has
    /// rows or not (`hasRows`) starts. A copy whose last position is still the log's entry there
    /// follows on; a copy that never was one seeds an empty log with its rows (`seed()` appends
    /// them at 1: false when another copy seeded first; its own errors pass unchanged); anything
    /// else is cleared. The follower learns the log's newest snapshot here.
    public func start(stored: Int64?, hasRows: Bool, seed: () throws -> Bool) throws -> Start {
        // Known from the start, so that the first position past it reads no rows to find a
        // snapshot is not due yet.
        note(try ask { try log.snapshotHead()?.position ?? 0 })
        if let stored {
            guard stored > 0 else { return .clear }
            let entry = try ask { try log.entries(after: stored - 1, limit: 1).first }
            return entry?.position == stored ? .follow(stored) : .clear
        }
        guard hasRows else { return .follow(0) }
        let empty = try ask { try log.entries(after: 0, limit: 1).isEmpty }
        return try empty && seed() ? .seeded : .clear
    }

    /// Applies every batch after `start`, in order (`apply(changes, position)`), installing
    /// the newest snapshot where the entries a copy at `start` needs are gone; once past
    /// `start`, takes a snapshot if one is due (`snapshotIfDue`). Returns the position reached.
    /// - Parameter rows: the copy's rows now (read to install or take a snapshot).
    public func catchUp(
        from start: Int64,
        rows: () throws -> [Change],
        apply: ([Change], Int64) throws -> Void
    ) throws -> Int64 {
        var position = start
        while true {
            let entries = try ask { try log.entries(after: position, limit: Self.page) }
            if let first = entries.first, first.position > position + 1 {
                position = try install(over: position, rows: rows, apply: apply)
                continue
            }
            for entry in entries {
                guard entry.position == position + 1, let changes = SharedLogBatch.decode(entry.batch) else {
                    throw Unreadable(position: position + 1)
                }
                try apply(changes, entry.position)
                position = entry.position
            }
            if entries.count < Self.page { break }
        }
        if position > start { snapshotIfDue(at: position, rows: rows) }
        return position
    }

    /// Called once the copy reached `position` by its own append (`catchUp` calls it for what it
    /// applies): when the log
    /// has gathered `snapshotEntries` entries past its newest snapshot, `rows()` (the copy's
    /// state at `position`, read now) is stored as a new snapshot in the background and the
    /// log compacted. Failures are left for a later call.
    public func snapshotIfDue(at position: Int64, rows: () throws -> [Change]) {
        let due = state.withLock { state -> Bool in
            guard !state.taking, position - state.newestSnapshot >= snapshotEntries else { return false }
            state.taking = true
            return true
        }
        guard due else { return }
        guard let rows = try? rows() else {
            state.withLock { $0.taking = false }
            return
        }
        background.async { [self] in
            defer { state.withLock { $0.taking = false } }
            try? storeSnapshot(rows, at: position)
        }
    }

    /// Waits for a snapshot being stored in the background (tests, shutdown).
    public func waitForSnapshots() {
        background.sync {}
    }

    /// Stores `rows` as the snapshot at `position` when it is still due, publishes it, and
    /// compacts the log: the entries before the previous snapshot and older snapshots' chunks.
    func storeSnapshot(_ rows: [Change], at position: Int64) throws {
        let previous = try log.snapshotHead()?.position ?? 0
        note(previous)
        guard position - previous >= snapshotEntries else { return }
        let chunks = Self.chunks(of: rows)
        for (index, chunk) in chunks.enumerated() {
            try log.writeSnapshotChunk(chunk, at: position, chunk: Int32(index))
        }
        guard try log.publishSnapshot(at: position, chunks: Int32(chunks.count)) else { return }
        note(position)
        try log.compact(entriesBefore: previous, snapshotsBefore: position)
    }

    /// The newest snapshot, applied over the copy at `position` as the difference between the
    /// copy's rows and the snapshot's; returns the snapshot's position.
    private func install(
        over position: Int64,
        rows: () throws -> [Change],
        apply: ([Change], Int64) throws -> Void
    ) throws -> Int64 {
        for _ in 0..<Self.installAttempts {
            guard let head = try ask({ try log.snapshotHead() }), head.position > position else {
                throw Unreadable(position: position + 1)
            }
            guard let snapshot = try read(head) else { continue }
            try apply(Self.difference(from: try rows(), to: snapshot), head.position)
            note(head.position)
            return head.position
        }
        throw Unavailable(underlying: SnapshotsKeptChanging())
    }

    /// The rows of the snapshot `head` names, nil when a chunk is gone (a newer snapshot
    /// replaced it).
    private func read(_ head: SharedLogSnapshotHead) throws -> [Change]? {
        var rows: [Change] = []
        for chunk in 0..<head.chunks {
            guard let bytes = try ask({ try log.snapshotChunk(at: head.position, chunk: chunk) }) else { return nil }
            guard let changes = SharedLogBatch.decode(bytes) else { throw Unreadable(position: head.position) }
            rows += changes
        }
        return rows
    }

    private func note(_ snapshot: Int64) {
        state.withLock { $0.newestSnapshot = max($0.newestSnapshot, snapshot) }
    }

    private func ask<T>(_ call: () throws -> T) throws -> T {
        do {
            return try call()
        } catch let error as Unreadable {
            throw error
        } catch {
            throw Unavailable(underlying: error)
        }
    }

    /// The changes that make a copy holding `current` hold `target` instead.
    static func difference(from current: [Change], to target: [Change]) -> [Change] {
        var remaining: [[UInt8]: [UInt8]] = [:]
        remaining.reserveCapacity(current.count)
        for row in current {
            if let value = row.value { remaining[row.key] = value }
        }
        var changes: [Change] = []
        for row in target {
            guard let value = row.value else { continue }
            if remaining.removeValue(forKey: row.key) != value { changes.append((row.key, value)) }
        }
        for key in remaining.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) { changes.append((key, nil)) }
        return changes
    }

    /// `rows` as snapshot chunks: `SharedLogBatch`es of about `chunkBytes` each (at least one,
    /// empty for no rows).
    static func chunks(of rows: [Change]) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var current: [Change] = []
        var bytes = 0
        for row in rows where row.value != nil {
            let size = row.key.count + (row.value?.count ?? 0) + 9
            if bytes + size > chunkBytes && !current.isEmpty {
                chunks.append(SharedLogBatch.encode(current))
                current = []
                bytes = 0
            }
            current.append(row)
            bytes += size
        }
        chunks.append(SharedLogBatch.encode(current))
        return chunks
    }

    private struct SnapshotsKeptChanging: Error, CustomStringConvertible {
        var description: String { "newer snapshots kept replacing the one being read" }
    }
}
