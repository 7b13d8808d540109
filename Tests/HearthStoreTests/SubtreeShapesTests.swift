import HearthCore
import Testing

@testable import HearthStore

/// The writer replaces a subtree it wrote itself without an iterator (`SubtreeShapes`); these
/// sequences would leave stale keys behind if a remembered shape outlived a change to it.
@Suite struct SubtreeShapesTests {
    @Test func aRepeatedSetUsesTheRememberedKeysAndLeavesNoOldKey() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("fan/p0", #"{"s": 1, "old": true}"#)
        #expect(
            ns.writer.inspect {
                $0.shapes.keys(at: ns.keys.dataKey(DataPath(keys: [ChildKey("fan"), ChildKey("p0")])))?.count
            } == 2
        )
        try await ns.set("fan/p0", #"{"s": 2}"#)
        try await ns.set("fan/p0", #"{".value": 3, ".priority": 1}"#)
        try await ns.set("fan/p0", #"{"s": 4}"#)
        #expect(try await ns.json("", format: .export) == #"{"fan":{"p0":{"s":4}}}"#)
        try await ns.set("fan/p0", "null")
        #expect(try await ns.json("") == "null")
    }

    @Test func writesBelowAboveOrBesideAShapeKeepItExact() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // Below: an update adds a child the remembered shape does not list.
        try await ns.set("a", #"{"x": 1}"#)
        _ = try await ns.update("a", [("y", "2")])
        try await ns.set("a", #"{"z": 3}"#)
        #expect(try await ns.json("a") == #"{"z":3}"#)
        // A priority set on the node (a key inside its range).
        _ = try await ns.set("a/.priority", "5")
        try await ns.set("a", #"{"w": 1}"#)
        #expect(try await ns.json("", format: .export) == #"{"a":{"w":1}}"#)
        // Above: the parent becomes a leaf, then the child is written again.
        try await ns.set("b/c", #"{"x": 1}"#)
        try await ns.set("b", "7")
        try await ns.set("b/c", #"{"y": 1}"#)
        #expect(try await ns.json("b") == #"{"c":{"y":1}}"#)
        // Beside: a sibling's delete does not touch the shape.
        try await ns.set("d/p0", #"{"s": 1}"#)
        try await ns.set("d/p1", #"{"s": 1}"#)
        try await ns.set("d/p1", "null")
        try await ns.set("d/p0", #"{"t": 2}"#)
        #expect(try await ns.json("d") == #"{"p0":{"t":2}}"#)
    }

    @Test func aRememberedLeafReplacedByAnObjectOrNothingLeavesNoOldKey() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("c", "5")
        let key = ns.keys.dataKey(DataPath(keys: [ChildKey("c")]))
        #expect(ns.writer.inspect { $0.shapes.keys(at: key) } == [key])
        try await ns.set("c", #"{"x": 1}"#)
        #expect(try await ns.json("", format: .export) == #"{"c":{"x":1}}"#)
        try await ns.set("c", "6")
        try await ns.set("c", "7")
        #expect(try await ns.json("", format: .export) == #"{"c":7}"#)
        try await ns.set("c", "null")
        #expect(try await ns.json("") == "null")
    }

    @Test func aChangeHashesEachKeyAsAWholeKeyWhateverItShares() {
        let prefix: [UInt8] = [68, 0, 0, 0, 1, 2, 97, 0]
        let keys: [[UInt8]] = [prefix + [2, 98, 0], prefix, [68, 0, 0, 0, 1, 2, 99, 0], [68]]
        let change = SubtreeShapes.Change(written: keys, sharing: prefix)
        #expect(change.hashes == keys.map(SubtreeShapes.hash))
    }

    @Test func anImportForgetsEveryShape() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("a", #"{"x": 1}"#)
        let chunks = Chunks([Array(#"{"a": {"imported": true}}"#.utf8)])
        try await ns.importJSON(at: .root, nextChunk: { chunks.next() })
        #expect(ns.writer.inspect { $0.shapes.count } == 0)
        try await ns.set("a", #"{"y": 2}"#)
        #expect(try await ns.json("") == #"{"a":{"y":2}}"#)
    }
}

private final class Chunks: @unchecked Sendable {
    private var chunks: [[UInt8]]
    init(_ chunks: [[UInt8]]) { self.chunks = chunks }
    func next() -> [UInt8]? { chunks.isEmpty ? nil : chunks.removeFirst() }
}
