import HearthCore
import Testing

@testable import HearthStore

/// A namespace exists on disk from its first write (or `create()`): reading it, setting its
/// indexes or being refused a write leaves nothing behind, and ids handed out to namespaces
/// that never existed are never reused for data.
@Suite struct NamespaceRegistrationTests {
    static let byScore = IndexSpec(location: [.key(ChildKey("items"))], indexed: .child(path("score")))

    static func refuseAll(_: WriteProposal) -> Bool { false }

    @Test func readsIndexesAndRefusedWritesLeaveNoNamespace() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("ghost")
        #expect(try await ns.json("") == "null")
        try await ns.setIndexes([Self.byScore])
        #expect(ns.indexes == [Self.byScore])
        await #expect(throws: StoreError.self) {
            try await ns.write(Write(.set(path("a"), try value("1"))), authorize: Self.refuseAll)
        }
        #expect(try temp.store.namespaceNames() == [])
        try temp.reopen()
        #expect(try temp.store.namespaceNames() == [])
        #expect(try temp.store.namespace("ghost").indexes == [])
        #expect(try await temp.store.namespace("ghost").json("") == "null")
    }

    @Test func theFirstWriteCreatesItWithTheIndexesSetBefore() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("shop")
        try await ns.setIndexes([Self.byScore])
        try await ns.set("items", #"{"a":{"score":2},"b":{"score":1}}"#)
        #expect(try temp.store.namespaceNames() == ["shop"])
        try temp.reopen()
        let reopened = try temp.store.namespace("shop")
        #expect(reopened.indexes == [Self.byScore])
        var query = Query()
        query.order = .child(path("score"))
        query.limit = .first(1)
        let ordered = query
        let first = try await reopened.read { try $0.query(at: path("items"), ordered) }
        #expect(first.map(\.key) == [ChildKey("b")])
    }

    @Test func createMakesAnEmptyNamespaceExist() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        try await temp.store.namespace("ruled").create()
        try await temp.store.namespace("ruled").create()
        #expect(try temp.store.namespaceNames() == ["ruled"])
        try temp.reopen()
        #expect(try temp.store.namespaceNames() == ["ruled"])
        #expect(try await temp.store.namespace("ruled").json("") == "null")
    }

    /// Ids handed out in memory and never registered, registrations in any order, a reopen:
    /// every namespace keeps its own data.
    @Test func namespacesCreatedAroundUnusedOnesKeepTheirOwnData() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        for index in 0..<50 { _ = try temp.store.namespace("unused-\(index)") }
        let late = try temp.store.namespace("late")
        let early = try temp.store.namespace("early")
        try await early.set("v", #""early""#)
        try await late.set("v", #""late""#)
        try temp.reopen()
        for index in 0..<10 { _ = try temp.store.namespace("more-\(index)") }
        try await temp.store.namespace("next").set("v", #""next""#)
        try temp.reopen()
        #expect(Set(try temp.store.namespaceNames()) == ["early", "late", "next"])
        for name in ["early", "late", "next"] {
            #expect(try await temp.store.namespace(name).json("v") == "\"\(name)\"")
        }
        #expect(try await temp.store.namespace("unused-3").json("") == "null")
    }
}
