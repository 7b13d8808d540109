import HearthCore
import Testing

@testable import HearthStore

/// `/newest/<list>` names the last item of `/lists/<list>/items` by key after each write, as
/// the write leaves it (`TriggerChange.written.lastChild`), and `/newestBefore/<list>` the last
/// one before it (`snapshot.lastChild`).
struct NewestItem: WriteTrigger {
    var pattern: String { "/lists/$list/items/$item" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        let list = ChildKey(change.wildcards["list"]!)
        let items = DataPath(keys: [ChildKey("lists"), list, ChildKey("items")])
        func name(_ last: (key: ChildKey, node: Node)?) -> Node? {
            last.map { .leaf(.string($0.key.string), priority: nil) }
        }
        return [
            .set(DataPath(keys: [ChildKey("newest"), list]), name(change.written.lastChild(at: items))),
            .set(DataPath(keys: [ChildKey("newestBefore"), list]), name(change.snapshot.lastChild(at: items))),
        ]
    }
}

/// The bounded "last child" reads: the reader's, and the one over a write's changes.
@Suite(.timeLimit(.minutes(3))) struct LastChildTests {
    @Test func theReaderFindsTheLastChildByKeyWithoutReadingTheOthers() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("a", #"{".priority":3,"1":"one","10":{"x":1},"b":{"deep":{"er":true}},"a":"x"}"#)
        try await ns.set("leaf", "5")
        try await ns.set("b", #"{"k":{".value":1,".priority":2}}"#)
        let found = try await ns.read { reader in
            [
                reader.lastChild(at: path("a")).map { "\($0.key)=\($0.node)" },
                reader.lastChild(at: path("a"), before: ChildKey("b")).map { "\($0.key)" },
                reader.lastChild(at: path("a"), before: ChildKey("a")).map { "\($0.key)" },
                reader.lastChild(at: path("a"), before: ChildKey("10")).map { "\($0.key)" },
                reader.lastChild(at: path("a"), before: ChildKey("1")).map { "\($0.key)" },
                reader.lastChild(at: path("leaf")).map { "\($0.key)" },
                reader.lastChild(at: path("missing")).map { "\($0.key)" },
                reader.lastChild(at: path("b")).map { "\($0.key)" },
            ]
        }
        let b = try value(#"{"deep":{"er":true}}"#).node!
        #expect(found[0] == "b=\(b)")
        // Keys order as Firebase orders them: integers first, numerically.
        #expect(found[1] == "a")
        #expect(found[2] == "10")
        #expect(found[3] == "1")
        #expect(found[4] == nil)
        #expect(found[5] == nil)
        #expect(found[6] == nil)
        #expect(found[7] == "k")
        #expect(
            try await ns.read { $0.lastChild(at: path("b"))?.node } == (try value(#"{".value":1,".priority":2}"#).node)
        )
    }

    @Test func theWrittenStateSeesEveryChildTheWriteAddsOrRemoves() async throws {
        let temp = try TemporaryStore.with([NewestItem()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("lists/a/items/m1", "1")
        #expect(try await ns.json("newest") == #"{"a":"m1"}"#)
        #expect(try await ns.json("newestBefore") == "null")
        // Several items at once, the newest first: every call sees the same newest.
        _ = try await ns.update("lists/a/items", [("m4", "4"), ("m2", "2"), ("m3", "3")])
        #expect(try await ns.json("newest/a") == #""m4""#)
        #expect(try await ns.json("newestBefore/a") == #""m1""#)
        // Deleting the newest and an older one in one update.
        _ = try await ns.update("lists/a/items", [("m4", "null"), ("m3", "null")])
        #expect(try await ns.json("newest/a") == #""m2""#)
        // Emptying a child below an item removes the item.
        try await ns.set("lists/a/items/m5", #"{"x":1}"#)
        _ = try await ns.update("lists/a/items", [("m5/x", "null")])
        #expect(try await ns.json("newest/a") == #""m2""#)
        // A set above the items replaces them all.
        try await ns.set("lists/a", #"{"items":{"z0":1,"b":2}}"#)
        #expect(try await ns.json("newest/a") == #""z0""#)
        try await ns.set("lists/a", "null")
        #expect(try await ns.json("newest") == "null")
    }
}
