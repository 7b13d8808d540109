import HearthTestSupport
import Synchronization
import Testing

@testable import HearthStore

/// `SharedLogFollower` over an in-memory log: copies (dictionaries here) catch up, take
/// snapshots every `snapshotEntries` entries, the log keeps entries from the previous snapshot
/// on, and a copy further behind installs the newest snapshot.
@Suite struct SharedLogFollowerTests {
    /// A node's copy of the log: its rows and position, changed only through the follower (one
    /// thread at a time: the test's, or a hook the test runs on it).
    final class Copy: @unchecked Sendable {
        var rows: [[UInt8]: [UInt8]] = [:]
        var position: Int64 = 0
        var applied = 0
        let follower: SharedLogFollower

        init(_ log: any SharedLog, snapshotEntries: Int64) {
            follower = SharedLogFollower(log: log, snapshotEntries: snapshotEntries)
        }

        var sortedRows: [SharedLogBatch.Change] {
            rows.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { ($0, rows[$0]) }
        }

        func catchUp() throws {
            position = try follower.catchUp(from: position, rows: { sortedRows }) { changes, position in
                for change in changes { rows[change.key] = change.value }
                self.position = position
                applied += 1
            }
            follower.waitForSnapshots()
        }

        /// Catches up, then appends `changes` at the next position.
        func write(_ changes: [SharedLogBatch.Change]) throws {
            try catchUp()
            #expect(try follower.log.append(SharedLogBatch.encode(changes), at: position + 1))
            for change in changes { rows[change.key] = change.value }
            position += 1
            follower.snapshotIfDue(at: position) { sortedRows }
            follower.waitForSnapshots()
        }
    }

    static func key(_ index: Int) -> [UInt8] { Array("k/\(index)".utf8) }

    @Test func theLogIsBoundedAndACopyFarBehindInstallsTheSnapshot() throws {
        let log = MemorySharedLog()
        let writer = Copy(log, snapshotEntries: 10)
        let late = Copy(log, snapshotEntries: 10)
        // The late copy holds a key the log deletes later, and one it never had (a stray).
        try writer.write([(Self.key(0), [0]), (Self.key(1), [1])])
        try late.catchUp()
        late.rows[Array("stray".utf8)] = [9]
        for index in 2..<95 {
            try writer.write([(Self.key(index % 7), [UInt8(index)]), (Self.key(1), index == 50 ? nil : [UInt8(index)])])
        }
        // Snapshots at 10, 20, … 90: the log keeps the entries from the previous one (80) on,
        // and the newest snapshot's chunks only.
        #expect(log.head == SharedLogSnapshotHead(position: 90, chunks: 1))
        #expect(log.positions == Array(80...94))
        #expect(log.snapshotPositions == [90])

        try late.catchUp()
        #expect(late.position == 94)
        #expect(late.rows == writer.rows)
        // One batch for the snapshot's difference, then the four entries after it.
        #expect(late.applied == 1 + 1 + 4)
    }

    @Test func aCopyLessThanASnapshotBehindReplaysEveryEntry() throws {
        let log = MemorySharedLog()
        let writer = Copy(log, snapshotEntries: 10)
        let follower = Copy(log, snapshotEntries: 10)
        for index in 0..<15 { try writer.write([(Self.key(index), [UInt8(index)])]) }
        try follower.catchUp()
        #expect(follower.applied == 15)
        for index in 15..<28 { try writer.write([(Self.key(index), [UInt8(index)])]) }
        // Snapshots at 10 and 20: entries from 10 on remain, and the follower (at 15) replays.
        #expect(log.positions.first == 10)
        try follower.catchUp()
        #expect(follower.applied == 28)
        #expect(follower.rows == writer.rows)
    }

    @Test func aSnapshotReplacedWhileItIsReadIsReadAgain() throws {
        let log = MemorySharedLog()
        let writer = Copy(log, snapshotEntries: 5)
        for index in 0..<12 { try writer.write([(Self.key(index), [UInt8(index)])]) }
        #expect(log.head?.position == 10)
        // While the late copy reads snapshot 10, the writer goes on to the next one (15) and
        // the log drops snapshot 10's chunks.
        let writes = Mutex(0)
        log.state.withLock { state in
            state.beforeChunkRead = { position, _ in
                guard position == 10, writes.withLock({ $0 }) == 0 else { return }
                writes.withLock { $0 = 1 }
                log.state.withLock { $0.beforeChunkRead = nil }
                for index in 12..<16 { try? writer.write([(Self.key(index), [UInt8(index)])]) }
            }
        }
        let late = Copy(log, snapshotEntries: 5)
        try late.catchUp()
        #expect(writes.withLock { $0 } == 1)
        #expect(log.head?.position == 15)
        #expect(late.position == 16)
        #expect(late.rows == writer.rows)
    }

    @Test func entriesGoneWithoutASnapshotPastThemAreUnreadable() throws {
        let log = MemorySharedLog()
        for index in 1...5 { _ = try log.append(SharedLogBatch.encode([(Self.key(index), [1])]), at: Int64(index)) }
        try log.compact(entriesBefore: 4, snapshotsBefore: 0)
        let copy = Copy(log, snapshotEntries: 100)
        #expect(throws: SharedLogFollower.Unreadable.self) { try copy.catchUp() }
        #expect(copy.rows.isEmpty)
    }

    @Test func aSnapshotIsTakenOnlyWhenDueAndAStaleOneIsNotPublished() throws {
        let log = MemorySharedLog()
        let first = Copy(log, snapshotEntries: 10)
        for index in 0..<9 { try first.write([(Self.key(index), [1])]) }
        #expect(log.head == nil)
        try first.write([(Self.key(9), [1])])
        #expect(log.head?.position == 10)
        // A second copy that reaches 10 later finds snapshot 10 there and stores nothing.
        let second = Copy(log, snapshotEntries: 10)
        try second.catchUp()
        #expect(log.snapshotPositions == [10])
        #expect(second.follower.newestSnapshot == 10)

        // A follower that starts learns the newest snapshot at once: a copy at 12 reads no rows
        // for a snapshot that is not due.
        let restarted = SharedLogFollower(log: log, snapshotEntries: 10)
        #expect(try restarted.start(stored: 10, hasRows: true) { false } == .follow(10))
        #expect(restarted.newestSnapshot == 10)
        restarted.snapshotIfDue(at: 12) {
            Issue.record("rows read for a snapshot that is not due")
            return []
        }
    }

    @Test func chunksSplitLargeRowsAndDifferencesChangeOnlyWhatDiffers() {
        let big = [UInt8](repeating: 7, count: 600_000)
        let rows: [SharedLogBatch.Change] = [(Self.key(1), big), (Self.key(2), big), (Self.key(3), [1])]
        let chunks = SharedLogFollower.chunks(of: rows)
        #expect(chunks.count == 2)
        #expect(chunks.compactMap(SharedLogBatch.decode).flatMap { $0 }.map(\.key) == rows.map(\.key))
        #expect(SharedLogFollower.chunks(of: []) == [SharedLogBatch.encode([])])

        let current: [SharedLogBatch.Change] = [(Self.key(1), [1]), (Self.key(2), [2]), (Self.key(4), [4])]
        let target: [SharedLogBatch.Change] = [(Self.key(1), [1]), (Self.key(2), [3]), (Self.key(3), [3])]
        let difference = SharedLogFollower.difference(from: current, to: target)
        #expect(difference.map(\.key) == [Self.key(2), Self.key(3), Self.key(4)])
        #expect(difference.map(\.value) == [[3], [3], nil])
    }
}
