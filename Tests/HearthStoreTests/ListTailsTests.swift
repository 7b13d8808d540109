import Dispatch
import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// The writer remembers where a list ends (`SubtreeShapes.isPastTail`), so a new child after
/// the end is written without the seek that would find what it replaces; every way the list
/// can grow past that end, or be replaced, must keep the answer right.
@Suite struct ListTailsTests {
    private func knowsNothingIsAt(_ where_: String, in ns: NamespaceStore) -> Bool {
        let key = ns.keys.dataKey(path(where_))
        return ns.writer.inspect { $0.shapes.isPastTail(key, parent: SubtreeShapes.parent(of: key)) }
    }

    @Test func appendedChildrenNeedNoSeekAndReadBackAsWritten() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        for n in 1...5 { try await ns.set("log/c0/\(n)", #"{"n":\#(n),"t":"hello"}"#) }

        #expect(knowsNothingIsAt("log/c0/6", in: ns))
        #expect(!knowsNothingIsAt("log/c0/5", in: ns), "the last child is there")
        #expect(!knowsNothingIsAt("log/c0/0", in: ns), "before the end: not known")
        try await ns.set("log/c0/6", "6")
        #expect(try await ns.json("log/c0/5") == #"{"n":5,"t":"hello"}"#)
        #expect(try await ns.json("log/c0/6") == "6")
    }

    @Test func replacingTheListForgetsItsEnd() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("list/a", "1")
        try await ns.set("list/b", "2")
        #expect(knowsNothingIsAt("list/z", in: ns))

        // The list itself, then its parent, put children after the old end.
        try await ns.set("list", #"{"z":{"x":1,"y":2}}"#)
        #expect(!knowsNothingIsAt("list/z", in: ns))
        try await ns.set("list/z", "3")
        #expect(try await ns.json("list") == #"{"z":3}"#)

        try await ns.set("list/c", "4")
        try await ns.update("", [("list", #"{"zz":{"x":1}}"#)])
        try await ns.set("list/zz", "5")
        #expect(try await ns.json("list") == #"{"zz":5}"#)
    }

    @Test func aDeepWriteAfterTheEndMovesIt() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("rooms/r/a", "1")
        try await ns.set("rooms/r/b", "1")
        // Grandchildren after the end, from an update above the list.
        try await ns.update("", [("rooms/r/m/x", "1"), ("rooms/r/m/y", "2")])
        #expect(!knowsNothingIsAt("rooms/r/m", in: ns))
        #expect(knowsNothingIsAt("rooms/r/n", in: ns))

        try await ns.set("rooms/r/m", "9")
        #expect(try await ns.json("rooms/r") == #"{"a":1,"b":1,"m":9}"#)
    }

    @Test func oneUpdateOfSeveralNewChildrenEndsTheListAtTheLast() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("q/a", "1")
        try await ns.update("q", [("b", #"{"v":1}"#), ("k", #"{"v":2,"w":3}"#)])
        #expect(!knowsNothingIsAt("q/k", in: ns))

        try await ns.set("q/k", "4")
        #expect(try await ns.json("q") == #"{"a":1,"b":{"v":1},"k":4}"#)
    }

    @Test func aWritePlannedBesideStagedWritesLearnsNoEnd() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("other", "1")
        let first = Write(.set(path("other2"), try value("1")))
        let later = Write(.set(path("s/z/x"), try value(#"{"x":1,"y":2}"#)))
        let earlier = Write(.set(path("s/c"), try value("1")))
        // One round, all staged: `s/z/x` is planned with `other2` staged (and would only
        // teach `s/z`'s end), `s/c` against a snapshot without `s/z/x`, where nothing follows
        // it: it must not teach `s`'s end, `s/z` is there.
        let loop = DispatchQueue(label: "test.loop")
        let done = DispatchGroup()
        let home = WritePass.Home(id: ObjectIdentifier(loop)) { work in loop.async(execute: work) }
        loop.sync {
            let pass = WritePass(home: home)
            for write in [first, later, earlier] {
                done.enter()
                ns.write(write, in: pass) { _ in done.leave() }
            }
            pass.finish()
        }
        done.wait()
        #expect(!knowsNothingIsAt("s/z", in: ns))

        try await ns.set("s/z", "5")
        #expect(try await ns.json("s") == #"{"c":1,"z":5}"#)
    }

    @Test func anEndLearnedFromADeleteIsForgottenWithAWriteOfTheList() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("d/a", "null")
        #expect(knowsNothingIsAt("d/b", in: ns))

        try await ns.set("d", #"{"z":{"x":1}}"#)
        try await ns.set("d/z", "5")
        #expect(try await ns.json("d") == #"{"z":5}"#)
    }

    @Test func theEndIsForgottenWhenTheWriterForgetsEverything() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("t/a", "1")
        try await ns.set("t/b", "1")
        #expect(knowsNothingIsAt("t/c", in: ns))
        ns.writer.inspect { $0.shapes.removeAll() }
        #expect(!knowsNothingIsAt("t/c", in: ns))
    }
}
