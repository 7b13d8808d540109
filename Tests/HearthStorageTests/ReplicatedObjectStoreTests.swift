import Foundation
import HearthStorage
import HearthStore
import HearthTestSupport
import Synchronization
import Testing

/// Object stores that are copies of one storage log (a cluster's, `ObjectStore.replicate`),
/// over an in-memory log and bytes: a change through one store is every store's after it
/// catches up, a change whose position another store took is made again on the newer catalog,
/// bytes come from the shared pieces into a store's cache, a dead version's pieces go, and a
/// single store's objects seed an empty log.
@Suite struct ReplicatedObjectStoreTests {
    static let bucket = try! BucketName("test.appspot.com")

    /// The cluster's side in memory: its storage log (`MemorySharedLog`) and objects' bytes.
    final class MemoryCluster: SharedLog, SharedObjectBytes {
        struct State {
            var pieces: [String: [Int: [UInt8]]] = [:]
            var lastGeneration: UInt64 = 0
        }
        let state = Mutex(State())
        let log = MemorySharedLog()

        func entries(after position: Int64, limit: Int) throws -> [SharedLogEntry] {
            try log.entries(after: position, limit: limit)
        }

        func append(_ batch: [UInt8], at position: Int64) throws -> Bool { try log.append(batch, at: position) }

        func snapshotHead() throws -> SharedLogSnapshotHead? { try log.snapshotHead() }

        func snapshotChunk(at position: Int64, chunk: Int32) throws -> [UInt8]? {
            try log.snapshotChunk(at: position, chunk: chunk)
        }

        func writeSnapshotChunk(_ data: [UInt8], at position: Int64, chunk: Int32) throws {
            try log.writeSnapshotChunk(data, at: position, chunk: chunk)
        }

        func publishSnapshot(at position: Int64, chunks: Int32) throws -> Bool {
            try log.publishSnapshot(at: position, chunks: chunks)
        }

        func compact(entriesBefore: Int64, snapshotsBefore: Int64) throws {
            try log.compact(entriesBefore: entriesBefore, snapshotsBefore: snapshotsBefore)
        }

        func reserveGeneration(atLeast: UInt64) throws -> UInt64 {
            state.withLock { state in
                state.lastGeneration = max(state.lastGeneration + 1, atLeast)
                return state.lastGeneration
            }
        }

        func write(_ bytes: [UInt8], generation: String, piece: Int) throws {
            state.withLock { $0.pieces[generation, default: [:]][piece] = bytes }
        }

        func read(generation: String, piece: Int) throws -> [UInt8]? {
            state.withLock { $0.pieces[generation]?[piece] }
        }

        func copy(generation source: String, to target: String) throws {
            state.withLock { $0.pieces[target] = $0.pieces[source] }
        }

        func delete(generation: String) throws {
            state.withLock { _ = $0.pieces.removeValue(forKey: generation) }
        }

        func generations(untouchedFor seconds: Int) throws -> [String] {
            state.withLock { Array($0.pieces.keys) }
        }

        var generationsWithBytes: Set<String> { state.withLock { Set($0.pieces.keys) } }
    }

    /// A store in a directory of its own, the same fixed clock for all.
    final class Node {
        let directory: TemporaryDirectory
        let store: ObjectStore

        init() throws {
            directory = try TemporaryDirectory(prefix: "hearth-replicated-storage")
            store = try ObjectStore(dataDirectory: directory.path) { 1_700_000_000_000 }
        }

        deinit {
            store.close()
            directory.remove()
        }

        @discardableResult
        func put(_ name: String, _ bytes: [UInt8]) throws -> ObjectMetadata {
            let upload = try store.beginUpload()
            try upload.append(bytes)
            return try store.finish(
                upload,
                as: try ObjectName(name),
                in: ReplicatedObjectStoreTests.bucket,
                contentType: nil
            )
        }

        func bytes(of object: ObjectMetadata) throws -> [UInt8] {
            Array(try Data(contentsOf: URL(fileURLWithPath: try store.localPath(of: object))))
        }

        func cachedFiles() -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/storage/objects")) ?? []
        }
    }

    static func follow(_ nodes: [Node], _ cluster: MemoryCluster, snapshotEntries: Int64 = 50_000) throws {
        for (index, node) in nodes.enumerated() {
            _ = try node.store.replicate(
                through: cluster,
                bytes: cluster,
                sessionTag: String(repeating: "\(index)", count: 32),
                snapshotEntries: snapshotEntries
            )
        }
    }

    @Test func aChangeThroughOneStoreIsEveryStoresAndItsBytesComeFromThePieces() throws {
        let cluster = MemoryCluster()
        let (first, second) = (try Node(), try Node())
        try Self.follow([first, second], cluster)
        // Three pieces: two whole and one short.
        let bytes = (0..<(2 * ObjectStore.sharedPieceBytes + 10)).map { UInt8(truncatingIfNeeded: $0 * 31) }
        let object = try first.put("a/b.bin", bytes)
        #expect(cluster.state.withLock { $0.pieces[object.generation]?.count } == 3)

        try second.store.synchronize()
        let seen = try second.store.metadata(Self.bucket, try ObjectName("a/b.bin"))
        #expect(seen == object)
        #expect(second.cachedFiles().isEmpty)
        #expect(try second.bytes(of: seen) == bytes)
        #expect(second.cachedFiles() == [object.generation])

        // A delete through the second store: the first's file and the pieces go.
        try second.store.delete(Self.bucket, try ObjectName("a/b.bin"))
        #expect(cluster.generationsWithBytes.isEmpty)
        try first.store.synchronize()
        #expect(throws: StorageError.self) { try first.store.metadata(Self.bucket, try ObjectName("a/b.bin")) }
        #expect(first.cachedFiles().isEmpty)
    }

    @Test func aChangeWhosePositionAnotherStoreTookIsMadeAgainOnTheNewerCatalog() throws {
        let cluster = MemoryCluster()
        let (first, second) = (try Node(), try Node())
        try Self.follow([first, second], cluster)
        let name = try ObjectName("shared.txt")
        let original = try first.put("shared.txt", Array("one".utf8))
        try second.store.synchronize()

        // Just before the first store's append, the second patches the object: the first's
        // append is refused, and its patch is made again on top of the second's.
        let secondStore = second.store
        cluster.log.state.withLock { state in
            state.beforeAppend = {
                _ = try? secondStore.update(Self.bucket, name, with: MetadataPatch(json: ["contentType": "text/b"]))
            }
        }
        let patched = try first.store.update(
            Self.bucket,
            name,
            with: try MetadataPatch(json: ["metadata": ["by": "first"]])
        )
        #expect(patched.metageneration == original.metageneration + 2)
        #expect(patched.contentType == "text/b")
        #expect(patched.metadata == ["by": "first"])
        try second.store.synchronize()
        #expect(try second.store.metadata(Self.bucket, name) == patched)

        // Two uploads of one name through both stores: the later one is live in both, and the
        // earlier one's pieces are gone.
        let replaced = try second.put("shared.txt", Array("two".utf8))
        let latest = try first.put("shared.txt", Array("three".utf8))
        try second.store.synchronize()
        #expect(try second.store.metadata(Self.bucket, name) == latest)
        #expect(try second.bytes(of: latest) == Array("three".utf8))
        #expect(!cluster.generationsWithBytes.contains(replaced.generation))
        #expect(!cluster.generationsWithBytes.contains(original.generation))
        #expect(Set([original.generation, replaced.generation, latest.generation]).count == 3)

        // Pieces no object names (an upload that died before its metadata) go with the sweep;
        // the live version's stay.
        try cluster.write([1, 2, 3], generation: "42", piece: 0)
        #expect(try first.store.sweepShared(untouchedFor: 0) == 1)
        #expect(cluster.generationsWithBytes == [latest.generation])
    }

    @Test func aSingleStoresObjectsSeedAnEmptyLogAndAreDroppedByAnyOther() throws {
        let cluster = MemoryCluster()
        let seeder = try Node()
        let kept = try seeder.put("kept.txt", Array("kept".utf8))
        let late = try Node()
        try late.put("dropped.txt", Array("dropped".utf8))
        let fresh = try Node()

        let seeded = try seeder.store.replicate(through: cluster, bytes: cluster, sessionTag: "")
        #expect(seeded.seeded == 1)
        #expect(!seeded.cleared)
        let dropped = try late.store.replicate(through: cluster, bytes: cluster, sessionTag: "")
        #expect(dropped.cleared)
        #expect(dropped.swept == 1)
        _ = try fresh.store.replicate(through: cluster, bytes: cluster, sessionTag: "")
        for node in [late, fresh] {
            let listing = try node.store.list(Self.bucket)
            #expect(listing.items.map(\.name) == ["kept.txt"])
            #expect(try node.bytes(of: kept) == Array("kept".utf8))
        }
        // A new upload's generation passes the seeded one.
        #expect(UInt64(try fresh.put("new.txt", [1]).generation)! > UInt64(kept.generation)!)
    }

    @Test func aStoreFarBehindInstallsTheLogsSnapshotAndItsDeletedVersionsFilesGo() throws {
        let cluster = MemoryCluster()
        let (writer, late) = (try Node(), try Node())
        try Self.follow([writer, late], cluster, snapshotEntries: 4)
        let doomed = try writer.put("doomed.txt", Array("doomed".utf8))
        try late.store.synchronize()
        #expect(try late.bytes(of: doomed) == Array("doomed".utf8))
        #expect(late.cachedFiles() == [doomed.generation])

        // Far more changes than two snapshots hold, the late store asleep: the log keeps its
        // entries from the previous snapshot on, and the newest snapshot's chunks only.
        try writer.store.delete(Self.bucket, try ObjectName("doomed.txt"))
        var kept: [String: ObjectMetadata] = [:]
        for index in 0..<12 {
            let name = "file-\(index % 5).txt"
            kept[name] = try writer.put(name, Array("v\(index)".utf8))
            writer.store.waitForSnapshots()
        }
        let head = try #require(cluster.log.head)
        #expect(cluster.log.snapshotPositions == [head.position])
        #expect(cluster.log.positions.first! > 2)
        #expect(cluster.log.positions.count <= 2 * 4 + 1)

        // The late store installs the snapshot: the deleted object and its file are gone, every
        // live object is there with its bytes.
        try late.store.synchronize()
        #expect(throws: StorageError.self) { try late.store.metadata(Self.bucket, try ObjectName("doomed.txt")) }
        #expect(!late.cachedFiles().contains(doomed.generation))
        #expect(try late.store.list(Self.bucket).items.map(\.name) == kept.keys.sorted())
        for (name, object) in kept {
            #expect(try late.store.metadata(Self.bucket, try ObjectName(name)) == object)
            #expect(try late.bytes(of: object) == Array(try writer.bytes(of: object)))
        }
        // A later change through the late store lands after the writer's.
        let after = try late.put("after.txt", [7])
        try writer.store.synchronize()
        #expect(try writer.store.metadata(Self.bucket, try ObjectName("after.txt")) == after)
    }
}
