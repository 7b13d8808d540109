import Foundation
import HearthCore
import HearthTestSupport
import Testing

@testable import HearthStore

@Suite struct WriteBatchLastWritesTests {
    /// A store in a temporary directory holding `keys` (each with value "1").
    private func withStore(holding keys: [String], _ body: (LevelDB) throws -> Void) throws {
        let directory = try TemporaryDirectory(prefix: "hearth-batch").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try LevelDB(path: directory, writeBufferSize: 1 << 20)
        defer { db.close() }
        let setup = WriteBatch()
        for key in keys { setup.put(Array(key.utf8), Array("1".utf8)) }
        try db.write(setup, sync: false)
        try body(db)
    }

    @Test func keepsOnlyEachKeysLastPutOrDeleteAndLeavesTheSameState() throws {
        try withStore(holding: ["gone", "kept"]) { db in try keepsOnlyEachKeysLastWrite(db) }
    }

    private func keepsOnlyEachKeysLastWrite(_ db: LevelDB) throws {

        let batch = WriteBatch()
        batch.put(Array("a".utf8), Array("1".utf8))
        batch.put(Array("b".utf8), Array("1".utf8))
        batch.put(Array("a".utf8), Array("2".utf8))
        batch.delete(Array("gone".utf8))
        batch.put(Array("b".utf8), Array("3".utf8))
        batch.put(Array("new".utf8), Array("x".utf8))
        batch.delete(Array("new".utf8))
        batch.put(Array("gone".utf8), Array("back".utf8))
        batch.delete(Array("gone".utf8))
        batch.noteDeleted(prefix: Array("gone".utf8))
        let compacted = try #require(batch.keepingLastWriteOfEachKey())
        #expect(compacted.count == 4)
        #expect(compacted.deletedRanges == [Array("gone".utf8)])
        try db.write(compacted, sync: false)
        let read = { (key: String) in
            try db.withSnapshot { $0.get(Array(key.utf8)).map { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(try read("a") == "2")
        #expect(try read("b") == "3")
        #expect(try read("new") == nil)
        #expect(try read("gone") == nil)
        #expect(try read("kept") == "1")
    }

    /// A batch handed to LevelDB with a key put, deleted and put again leaves its last operation
    /// (a guard for any reordering of the operations, decision 0027).
    @Test func aBatchWrittenWithRepeatsLeavesEachKeysLastOperation() throws {
        try withStore(holding: ["gone"]) { db in try leavesEachKeysLastOperation(db) }
    }

    private func leavesEachKeysLastOperation(_ db: LevelDB) throws {

        let batch = WriteBatch()
        batch.put(Array("z".utf8), Array("1".utf8))
        batch.put(Array("ab".utf8), Array("1".utf8))
        batch.put(Array("a".utf8), Array("1".utf8))
        batch.delete(Array("gone".utf8))
        batch.put(Array("z".utf8), Array("2".utf8))
        batch.delete(Array("ab".utf8))
        batch.put(Array("gone".utf8), Array("back".utf8))
        batch.put(Array("a".utf8), Array("3".utf8))
        batch.put([0x61, 0x00], Array("nul".utf8))
        batch.put([], Array("empty".utf8))
        try db.write(batch, sync: false)
        let read = { (key: [UInt8]) in
            try db.withSnapshot { $0.get(key).map { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(try read(Array("z".utf8)) == "2")
        #expect(try read(Array("ab".utf8)) == nil)
        #expect(try read(Array("a".utf8)) == "3")
        #expect(try read(Array("gone".utf8)) == "back")
        #expect(try read([0x61, 0x00]) == "nul")
        #expect(try read([]) == "empty")
    }

    @Test func aBatchWithoutRepeatsIsLeftAsItIs() {
        let batch = WriteBatch()
        batch.put(Array("a".utf8), Array("1".utf8))
        batch.delete(Array("b".utf8))
        #expect(batch.keepingLastWriteOfEachKey() == nil)
    }

    /// A put that carries its key's hash (the planner's) and one that does not are the same key.
    @Test func aKnownHashAndAComputedOneFindTheSameKey() {
        let key = KeySpace(namespaceID: 2).dataKey(DataPath(keys: [ChildKey("unreadTotals"), ChildKey("u1")]))
        let batch = WriteBatch()
        batch.put(key, Array("1".utf8), hash: SubtreeShapes.hash(key))
        batch.put(Array("other".utf8), Array("x".utf8))
        batch.put(key, Array("2".utf8))
        batch.put(key, Array("3".utf8), hash: SubtreeShapes.hash(key))
        let compacted = batch.keepingLastWriteOfEachKey()
        #expect(compacted?.operations.map(\.key) == [Array("other".utf8), key])
        #expect(compacted?.operations.last?.value == Array("3".utf8))
    }

    /// Appended batches keep each operation's bytes (keys and values of any length, empty ones
    /// too), and the compacted copy of the whole writes them as put.
    @Test func appendedBatchesKeepEveryKeyAndValue() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-batch").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try LevelDB(path: directory, writeBufferSize: 1 << 20)
        defer { db.close() }
        let long = [UInt8](repeating: 7, count: 70_000)
        let first = WriteBatch()
        first.put(Array("a".utf8), [])
        first.put(Array("long".utf8), long)
        let second = WriteBatch()
        second.put(Array("b".utf8), Array("2".utf8))
        Array("a".utf8).withUnsafeBytes { key in Array("again".utf8).withUnsafeBytes { second.put(key, $0) } }
        second.delete(Array("long".utf8))
        first.append(second)
        #expect(first.count == 5)
        #expect(first.byteSize == 1 + 4 + 70_000 + 1 + 1 + 1 + 5 + 4 + 5 * 8)
        #expect(first.operations.map(\.key) == ["a", "long", "b", "a", "long"].map { Array($0.utf8) })
        #expect(first.operations[1].value == long)
        let compacted = try #require(first.keepingLastWriteOfEachKey())
        #expect(compacted.operations.map(\.key) == ["b", "a", "long"].map { Array($0.utf8) })
        try db.write(first, sync: false)
        let read = { (key: String) in try db.withSnapshot { $0.get(Array(key.utf8)) } }
        #expect(try read("a") == Array("again".utf8))
        #expect(try read("b") == Array("2".utf8))
        #expect(try read("long") == nil)
        let empty = WriteBatch()
        empty.put([], [])
        try db.write(empty, sync: false)
        #expect(try db.withSnapshot { $0.get([]) } == [])
    }
}
