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
        let key = ns.keys.dataKey(DataPath(keys: [ChildKey("fan"), ChildKey("p0")]))
        // A node is remembered from its second write on (a first write is often the only one).
        try await ns.set("fan/p0", #"{"s": 0}"#)
        #expect(ns.writer.inspect { $0.shapes.keys(at: key) } == nil)
        try await ns.set("fan/p0", #"{"s": 1, "old": true}"#)
        #expect(ns.writer.inspect { $0.shapes.keys(at: key)?.count } == 2)
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
        try await ns.set("c", "4")
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

    /// A remembered object replaced by another deletes only the keys the new one does not put
    /// again; whatever the two share, nothing of the old one is left and all of the new one is.
    @Test func aRememberedObjectReplacedLeavesExactlyTheNewOne() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let key = ns.keys.dataKey(path("o"))
        let replacements: [(String, String)] = [
            (#"{"a": 1, "b": 2}"#, #"{"o":{"a":1,"b":2}}"#),
            (#"{"a": 1, "b": 2}"#, #"{"o":{"a":1,"b":2}}"#),
            (#"{"a": 3, "c": 4}"#, #"{"o":{"a":3,"c":4}}"#),
            (#"{"a": {"x": 1}, "c": 5}"#, #"{"o":{"a":{"x":1},"c":5}}"#),
            (#"{"a": 6, "c": {"y": true}}"#, #"{"o":{"a":6,"c":{"y":true}}}"#),
            (
                #"{".priority": 1, "a": {".value": 7, ".priority": "p"}}"#,
                #"{"o":{".priority":1,"a":{".value":7,".priority":"p"}}}"#
            ),
            (#"{".priority": 2, "a": 8}"#, #"{"o":{".priority":2,"a":8}}"#),
            (#"{"a": 9}"#, #"{"o":{"a":9}}"#),
            (#"{"b": {"a": 9}}"#, #"{"o":{"b":{"a":9}}}"#),
        ]
        for (value, expected) in replacements {
            try await ns.set("o", value)
            #expect(try await ns.json("", format: .export) == expected, "after \(value)")
        }
        // The last ones were planned from what the writer remembers of the object.
        #expect(ns.writer.inspect { $0.shapes.keys(at: key) } == [ns.keys.dataKey(path("o/b/a"))])
    }

    @Test func aNodePutsTheKeysOfItsLeavesAndPrioritiesOnly() throws {
        let keys = KeySpace(namespaceID: 3)
        let at = keys.dataKey(path("o"))
        let node = try value(#"{".priority": 1, "a": {".value": 7, ".priority": "p"}, "b": {"c": true}}"#).node!
        #expect(WritePlanner.puts(node, keys.priorityKey(path("o")), below: at))
        #expect(WritePlanner.puts(node, keys.dataKey(path("o/a")), below: at))
        #expect(WritePlanner.puts(node, keys.priorityKey(path("o/a")), below: at))
        #expect(WritePlanner.puts(node, keys.dataKey(path("o/b/c")), below: at))
        #expect(!WritePlanner.puts(node, at, below: at))
        #expect(!WritePlanner.puts(node, keys.dataKey(path("o/b")), below: at))
        #expect(!WritePlanner.puts(node, keys.priorityKey(path("o/b")), below: at))
        #expect(!WritePlanner.puts(node, keys.dataKey(path("o/b/c/d")), below: at))
        #expect(!WritePlanner.puts(node, keys.dataKey(path("o/x")), below: at))
        #expect(!WritePlanner.puts(node, keys.dataKey(path("p")), below: at))
    }

    @Test func aChangeHashesEachKeyAsAWholeKeyWhateverItShares() {
        let prefix: [UInt8] = [68, 0, 0, 0, 1, 2, 97, 0]
        let keys: [[UInt8]] = [prefix + [2, 98, 0], prefix, [68, 0, 0, 0, 1, 2, 99, 0], [68]]
        let change = SubtreeShapes.Change(written: keys, sharing: prefix)
        #expect(change.hashes == keys.map(SubtreeShapes.hash))
    }

    /// The writer skips looking for a leaf above a new node when it wrote a sibling since
    /// anything was written above; every way a leaf can appear up there must stop that.
    @Test func aLeafAboveANewNodeIsFoundWhateverMadeIt() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let sibling = ns.keys.dataKey(path("a/b/x"))
        #expect(!ns.writer.inspect { $0.shapes.noLeafAbove(sibling, parent: SubtreeShapes.parent(of: sibling)) })
        try await ns.set("a/b/c", "1")
        #expect(ns.writer.inspect { $0.shapes.noLeafAbove(sibling, parent: SubtreeShapes.parent(of: sibling)) })
        // The parent, then the grandparent, becomes a leaf.
        try await ns.set("a/b", "5")
        try await ns.set("a/b/d", "2")
        #expect(try await ns.json("", format: .export) == #"{"a":{"b":{"d":2}}}"#)
        try await ns.set("a", "6")
        try await ns.set("a/b/e", "3")
        #expect(try await ns.json("", format: .export) == #"{"a":{"b":{"e":3}}}"#)
        // By a multi-path update above, and by one that deletes the parent's last child and
        // sets a leaf in its place in one go.
        _ = try await ns.update("", [("a", "7"), ("z", "1")])
        try await ns.set("a/b/f", "4")
        #expect(try await ns.json("", format: .export) == #"{"a":{"b":{"f":4}},"z":1}"#)
        _ = try await ns.update("a", [("b", "8")])
        try await ns.set("a/b/g", "5")
        #expect(try await ns.json("", format: .export) == #"{"a":{"b":{"g":5}},"z":1}"#)
        // The last child deleted, then a leaf written at the parent's place.
        try await ns.set("a/b/g", "null")
        try await ns.set("a/b", "9")
        try await ns.set("a/b/h", "6")
        #expect(try await ns.json("", format: .export) == #"{"a":{"b":{"h":6}},"z":1}"#)
        // The root itself a leaf.
        try await ns.set("", "10")
        try await ns.set("a/b/i", "7")
        #expect(try await ns.json("", format: .export) == #"{"a":{"b":{"i":7}}}"#)
        // Staged in one round: a leaf above, then a node below it.
        _ = try await ns.writeInOneRound([Write(.set(path("q/r/s"), try value("1")))])
        _ = try await ns.writeInOneRound([
            Write(.set(path("q"), try value("2"))), Write(.set(path("q/r/t"), try value("3"))),
        ])
        #expect(try await ns.json("q", format: .export) == #"{"r":{"t":3}}"#)
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
