import Testing

@testable import HearthStore

/// `Store.recordRules`: versions survive a reopen, repeats are not kept, the oldest go past the
/// limit, and namespaces keep their own.
@Suite struct RulesHistoryStoreTests {
    @Test func versionsSurviveAReopenAndTheOldestGoPastTheLimit() throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        #expect(try temp.store.recordRules("a", for: "default", origin: "load", at: 1)?.version == 1)
        #expect(try temp.store.recordRules("a", for: "default", origin: "file", at: 2) == nil)
        for n in 2...25 { try temp.store.recordRules("v\(n)", for: "default", origin: "put", at: Double(n)) }
        try temp.store.recordRules("other", for: "chat", origin: "put", at: 1)
        try temp.reopen()
        let history = try temp.store.rulesHistory("default")
        #expect(history.count == Store.rulesHistoryLimit)
        #expect(history.first?.version == 6)
        #expect(history.last?.text == "v25")
        #expect(history.last?.version == 25)
        #expect(try temp.store.rulesHistory("chat").map(\.text) == ["other"])
        // A namespace whose name extends another's keeps its own.
        #expect(try temp.store.rulesHistory("cha").isEmpty)
    }
}
