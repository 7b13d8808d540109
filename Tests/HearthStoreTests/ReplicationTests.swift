import Foundation
import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// A clustered namespace's local copy (`ReplicationSink`, `Store.applyReplicated`): what the
/// owner's writer hands the changelog, replayed into another store, is the same namespace,
/// key for key; a refused append acknowledges nothing and stops the writer.
@Suite struct ReplicationTests {
    /// The cluster's changelog, in memory: appended only after its last position, like
    /// `ClusterDirectory.append`.
    final class MemoryChangelog: Sendable {
        let entries = Mutex<[ReplicatedEntry]>([])
        let refusing = Atomic<Bool>(false)

        func sink(epoch: UInt64) -> ReplicationSink {
            ReplicationSink(epoch: epoch) { batches, after in
                if self.refusing.load(ordering: .relaxed) { throw StoreError(.io, "fenced") }
                try self.entries.withLock { entries in
                    guard UInt64(entries.count) == after else { throw StoreError(.io, "not after the last entry") }
                    for batch in batches {
                        entries.append(ReplicatedEntry(lsn: UInt64(entries.count) + 1, epoch: epoch, batch: batch))
                    }
                }
            }
        }
    }

    static let chatList = IndexSpec(location: [.key(ChildKey("uc")), .wildcard("$u")], indexed: .child(path("at")))

    /// Every key of namespace `name` but its position, without its namespace id.
    static func namespaceKeys(_ store: Store, _ name: String) throws -> [[UInt8]: [UInt8]] {
        try store.db.withSnapshot { snapshot in
            guard let id = snapshot.get(KeySpace.namespaceKey(name)).map(KeySpace.decodeBigEndian) else { return [:] }
            var keys: [[UInt8]: [UInt8]] = [:]
            for table in KeySpace.namespaceTables where table != KeySpace.replicationTable {
                let prefix = KeySpace.prefix(table, id)
                let cursor = snapshot.makeIterator()
                cursor.seek(prefix)
                while cursor.hasPrefix(prefix) {
                    keys[[table] + Array(cursor.keyBytes.dropFirst(5))] = Array(cursor.valueBytes)
                    cursor.next()
                }
            }
            return keys
        }
    }

    func owner(_ log: MemoryChangelog, epoch: UInt64 = 1) throws -> TemporaryStore {
        var configuration = StoreConfiguration()
        configuration.replication = { name in name == "chat" ? log.sink(epoch: epoch) : nil }
        return try TemporaryStore(configuration: configuration)
    }

    private func writeSome(_ ns: NamespaceStore) async throws {
        try await ns.setIndexes([Self.chatList])
        try await ns.set("uc", #"{"u1": {"c1": {"at": 1}, "c2": {"at": 5}}, "u2": {"c1": {"at": 3}}}"#)
        try await ns.update("", [("uc/u1/c1/at", "9"), ("uc/u2/c1/at", "2"), ("m/a", #""hi""#)])
        try await ns.set("uc/u1/c2", "null")
        try await ns.write(Write(.set(path("n"), try value(#"{".sv": {"increment": 2}}"#))))
    }

    @Test func theChangelogReplayedElsewhereIsTheSameNamespaceKeyForKey() async throws {
        let log = MemoryChangelog()
        let leader = try owner(log)
        defer { leader.destroy() }
        try await writeSome(try leader.store.namespace("chat"))
        let entries = log.entries.withLock { $0 }
        #expect(entries.map(\.lsn) == Array(1...UInt64(entries.count)))
        #expect(entries.count >= 5)

        let follower = try TemporaryStore()
        defer { follower.destroy() }
        // Another namespace first, so the follower's id for "chat" differs from the leader's.
        try await follower.store.namespace("other").set("x", "1")
        try follower.store.applyReplicated(Array(entries.prefix(2)), to: "chat")
        try follower.store.applyReplicated(Array(entries.dropFirst(2)), to: "chat")
        #expect(
            try follower.store.replicationPosition(of: "chat")
                == ReplicationPosition(lsn: UInt64(entries.count), epoch: 1)
        )
        #expect(try Self.namespaceKeys(follower.store, "chat") == Self.namespaceKeys(leader.store, "chat"))
        #expect(try Self.namespaceKeys(follower.store, "chat").isEmpty == false)

        let replica = try follower.store.namespace("chat")
        #expect(try await replica.json("") == (try await leader.store.namespace("chat").json("")))
        #expect(replica.indexes == [Self.chatList])
        #expect(try await replica.indexDisagreements().isEmpty)
        #expect(try await follower.store.namespace("other").json("x") == "1")
    }

    @Test func aSnapshotInstalledElsewhereIsTheSameNamespaceAndTheChangelogGoesOnFromIt() async throws {
        let log = MemoryChangelog()
        let leader = try owner(log)
        defer { leader.destroy() }
        let chat = try leader.store.namespace("chat")
        try await writeSome(chat)
        // Read while the namespace is open and served, in small chunks.
        var chunks: [[UInt8]] = []
        let position = try #require(
            try leader.store.snapshotReplica(of: "chat", chunkBytes: 64) { position, chunk in
                #expect(position.lsn == UInt64(log.entries.withLock { $0.count }))
                chunks.append(chunk)
            }
        )
        #expect(chunks.count > 1)
        try await chat.set("after", #""the snapshot""#)
        let later = log.entries.withLock { $0 }.filter { $0.lsn > position.lsn }
        #expect(!later.isEmpty)

        let follower = try TemporaryStore()
        defer { follower.destroy() }
        try await follower.store.namespace("other").set("x", "1")
        // A copy that held something else is cleared first, as a node far behind does.
        try follower.store.applyReplicated(Array(log.entries.withLock { $0 }.prefix(1)), to: "chat")
        try follower.store.discardReplica("chat")
        for chunk in chunks { try follower.store.applySnapshotChunk(chunk, to: "chat") }
        #expect(try follower.store.replicationPosition(of: "chat") == nil)
        try follower.store.setReplicationPosition(position, of: "chat")
        try follower.store.applyReplicated(later, to: "chat")
        #expect(try Self.namespaceKeys(follower.store, "chat") == Self.namespaceKeys(leader.store, "chat"))
        let replica = try follower.store.namespace("chat")
        #expect(try await replica.json("") == (try await chat.json("")))
        #expect(replica.indexes == [Self.chatList])
        #expect(try await replica.indexDisagreements().isEmpty)
        #expect(try await follower.store.namespace("other").json("x") == "1")
    }

    @Test func aRefusedAppendAcknowledgesNothingAndStopsTheWriter() async throws {
        let log = MemoryChangelog()
        let leader = try owner(log)
        defer { leader.destroy() }
        let ns = try leader.store.namespace("chat")
        try await ns.set("a", "1")
        let committed = log.entries.withLock { $0.count }
        log.refusing.store(true, ordering: .relaxed)
        await #expect(throws: StoreError.self) { try await ns.set("a", "2") }
        log.refusing.store(false, ordering: .relaxed)
        // Every later write is refused too: the local copy holds a batch the log does not.
        await #expect(throws: StoreError.self) { try await ns.set("b", "3") }
        #expect(log.entries.withLock { $0.count } == committed)
        let position = try #require(try leader.store.replicationPosition(of: "chat"))
        #expect(position.lsn == UInt64(committed) + 1)
    }

    @Test func aDiscardedCopyCatchesUpFromTheStart() async throws {
        let log = MemoryChangelog()
        let leader = try owner(log)
        defer { leader.destroy() }
        try await writeSome(try leader.store.namespace("chat"))
        let entries = log.entries.withLock { $0 }
        let follower = try TemporaryStore()
        defer { follower.destroy() }
        try follower.store.applyReplicated(entries, to: "chat")
        try follower.store.discardReplica("chat")
        #expect(try Self.namespaceKeys(follower.store, "chat").isEmpty)
        #expect(try follower.store.replicationPosition(of: "chat") == nil)
        try follower.store.applyReplicated(entries, to: "chat")
        #expect(try Self.namespaceKeys(follower.store, "chat") == Self.namespaceKeys(leader.store, "chat"))
    }

    @Test func anEntryOutOfOrderOrAnOpenNamespaceIsRefused() async throws {
        let log = MemoryChangelog()
        let leader = try owner(log)
        defer { leader.destroy() }
        try await writeSome(try leader.store.namespace("chat"))
        let entries = log.entries.withLock { $0 }
        let follower = try TemporaryStore()
        defer { follower.destroy() }
        #expect(throws: StoreError.self) { try follower.store.applyReplicated(Array(entries.dropFirst()), to: "chat") }
        #expect(try follower.store.replicationPosition(of: "chat") == nil)
        _ = try follower.store.namespace("chat")
        #expect(throws: StoreError.self) { try follower.store.applyReplicated(entries, to: "chat") }
        #expect(throws: StoreError.self) { try follower.store.discardReplica("chat") }
    }

    @Test func theOwnersNextEpochContinuesFromItsPosition() async throws {
        let log = MemoryChangelog()
        let first = try owner(log, epoch: 1)
        defer { first.destroy() }
        try await first.store.namespace("chat").set("a", "1")
        // A second node takes over at epoch 2 from the log, then writes on.
        let second = try owner(log, epoch: 2)
        defer { second.destroy() }
        try second.store.applyReplicated(log.entries.withLock { $0 }, to: "chat")
        try await second.store.namespace("chat").set("b", "2")
        let entries = log.entries.withLock { $0 }
        #expect(entries.last?.epoch == 2)
        #expect(
            try second.store.replicationPosition(of: "chat")
                == ReplicationPosition(lsn: UInt64(entries.count), epoch: 2)
        )
        let third = try TemporaryStore()
        defer { third.destroy() }
        try third.store.applyReplicated(entries, to: "chat")
        #expect(try await third.store.namespace("chat").json("") == #"{"a":1,"b":2}"#)
    }
}

extension ReplicationTests {
    @Test func aClusteredNamespacesJobQueueChangesReachTheChangelog() async throws {
        let log = MemoryChangelog()
        let leader = try owner(log)
        defer { leader.destroy() }
        let ns = try leader.store.namespace("chat")
        try await ns.set("a", "1")
        let before = log.entries.withLock { $0.count }
        try ns.changeJobs([.put(queue: "push", key: [1, 2], payload: Array("job".utf8))])
        #expect(log.entries.withLock { $0.count } == before + 1)
        try ns.changeJobs([.remove(queue: "push", key: [1, 2])])
        let entries = log.entries.withLock { $0 }
        #expect(entries.count == before + 2)
        // A successor replaying the log holds the queue as the owner left it: empty.
        let follower = try TemporaryStore()
        defer { follower.destroy() }
        try follower.store.applyReplicated(Array(entries.prefix(before + 1)), to: "chat")
        #expect(try Self.namespaceKeys(follower.store, "chat").keys.contains { $0.first == KeySpace.jobTable })
        try follower.store.applyReplicated(Array(entries.dropFirst(before + 1)), to: "chat")
        #expect(try Self.namespaceKeys(follower.store, "chat") == Self.namespaceKeys(leader.store, "chat"))
        #expect(try Self.namespaceKeys(follower.store, "chat").keys.contains { $0.first == KeySpace.jobTable } == false)
    }

    @Test func aForgottenNamespacesWriterRefusesEveryLaterWrite() async throws {
        let log = MemoryChangelog()
        let leader = try owner(log)
        defer { leader.destroy() }
        let ns = try leader.store.namespace("chat")
        try await ns.set("a", "1")
        let committed = log.entries.withLock { $0.count }
        leader.store.forgetNamespace("chat")
        await #expect(throws: StoreError.self) { try await ns.set("a", "2") }
        #expect(throws: StoreError.self) { try ns.changeJobs([.put(queue: "push", key: [1], payload: [1])]) }
        #expect(log.entries.withLock { $0.count } == committed)
    }
}
