import HearthCore
import Testing

@testable import HearthStore

/// The words of `/people/$id/name`, lower-cased: a lookup index as the chat app's are.
struct NameWords: LookupIndex {
    var version = 1
    var name: String { "words" }
    var pattern: String { "/people/$id/name" }

    func terms(of value: Node, wildcards: [String: String]) -> [String] {
        guard case .leaf(.string(let text), _) = value else { return [] }
        return text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// The name as written.
    func payload(of value: Node, wildcards: [String: String]) -> [UInt8] {
        guard case .leaf(.string(let text), _) = value else { return [] }
        return Array(text.utf8)
    }
}

extension TemporaryStore {
    /// A store whose namespaces keep `lookups`.
    static func with(lookups: [any LookupIndex]) throws -> TemporaryStore {
        try TemporaryStore(configuration: StoreConfiguration(triggers: .with(lookups: lookups)))
    }
}

extension WriteTriggers {
    static func with(lookups: [any LookupIndex]) throws -> WriteTriggers {
        var all = WriteTriggers()
        for lookup in lookups { try all.add(lookup) }
        return all
    }
}

extension NamespaceStore {
    /// The ids of the people the words index finds under exactly `term`.
    func people(_ term: String) async throws -> [String] {
        try await read { reader in reader.lookup("words", term: term).map { $0.keys[1].string } }
    }

    /// Every (term, id) entry of the words index whose term starts with `prefix`, paged `page`
    /// at a time through the positions.
    func wordEntries(_ prefix: String, page: Int = .max) async throws -> [String] {
        var all: [String] = []
        var after: [UInt8]? = nil
        while true {
            let next = try await read { [after] reader -> [LookupMatch] in
                var found: [LookupMatch] = []
                reader.lookup("words", termPrefix: prefix, after: after) { match in
                    found.append(match)
                    return found.count < page
                }
                return found
            }
            all += next.map { "\($0.term):\($0.location.keys[1].string)" }
            guard next.count == page, let last = next.last else { return all }
            after = last.position
        }
    }

    /// True when the words index agrees with the tree.
    func wordsAgree() async throws -> Bool {
        let disagreement = try await lookupDisagreement("words")
        return disagreement?.missing.isEmpty == true && disagreement?.extra.isEmpty == true
    }
}

/// Lookup indexes: kept in the write's batch for every kind of write, paged by position,
/// rebuilt after an import or a version change, dropped when no longer registered.
@Suite(.timeLimit(.minutes(3))) struct LookupIndexTests {
    @Test func everyKindOfWriteKeepsTheIndex() async throws {
        let temp = try TemporaryStore.with(lookups: [NameWords()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("people/p1", #"{"name":"Ada Lovelace","age":36}"#)
        try await ns.set("people/p2/name", #""Alan Turing""#)
        #expect(try await ns.people("ada") == ["p1"])
        #expect(try await ns.people("turing") == ["p2"])
        // A change of the name moves its terms; another field changes nothing.
        try await ns.set("people/p1/name", #""Ada King""#)
        try await ns.set("people/p1/age", "37")
        #expect(try await ns.people("lovelace") == [])
        #expect(try await ns.people("king") == ["p1"])
        // A multi-path update above the pattern, one below it.
        _ = try await ns.update("people", [("p3", #"{"name":"Grace King"}"#), ("p2/name", #""Alan M Turing""#)])
        #expect(try await ns.people("king") == ["p1", "p3"])
        #expect(try await ns.people("m") == ["p2"])
        // A delete of one location, then a set above every location.
        try await ns.set("people/p1/name", "null")
        #expect(try await ns.people("king") == ["p3"])
        try await ns.set("people", #"{"p9":{"name":"Edsger Dijkstra"}}"#)
        #expect(try await ns.people("king") == [])
        #expect(try await ns.people("alan") == [])
        #expect(try await ns.people("edsger") == ["p9"])
        #expect(try await ns.wordsAgree())
        // Nothing of it is data: the tree holds only what was written.
        #expect(try await ns.json("") == #"{"people":{"p9":{"name":"Edsger Dijkstra"}}}"#)
    }

    @Test func entriesCarryThePayloadAndAChangedPayloadRewritesThem() async throws {
        let temp = try TemporaryStore.with(lookups: [NameWords()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        func payloads(_ term: String) async throws -> [String] {
            try await ns.read { reader in
                var found: [String] = []
                reader.lookup("words", termPrefix: term, after: nil) { match in
                    found.append(String(decoding: match.payload, as: UTF8.self))
                    return true
                }
                return found
            }
        }
        try await ns.set("people/p1/name", #""Ada King""#)
        #expect(try await payloads("king") == ["Ada King"])
        // The same words, written otherwise: every entry gets the new payload.
        try await ns.set("people/p1/name", #""ADA king""#)
        #expect(try await payloads("ada") == ["ADA king"])
        #expect(try await payloads("king") == ["ADA king"])
        #expect(try await ns.wordsAgree())
    }

    @Test func prefixScansPageThroughPositionsInTermOrder() async throws {
        let temp = try TemporaryStore.with(lookups: [NameWords()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let names = ["Jo Smith", "John Jones", "Joan Jo", "Bob Jonas", "Al Jolson", "Zed"]
        for (n, name) in names.enumerated() { try await ns.set("people/p\(n)/name", #""\#(name)""#) }
        let all = try await ns.wordEntries("jo")
        #expect(all == ["jo:p0", "jo:p2", "joan:p2", "john:p1", "jolson:p4", "jonas:p3", "jones:p1"])
        for page in [1, 2, 3] { #expect(try await ns.wordEntries("jo", page: page) == all) }
        #expect(try await ns.wordEntries("jon") == ["jonas:p3", "jones:p1"])
        #expect(try await ns.wordEntries("x") == [])
        // A position outside the scanned prefix is refused.
        let refused = try await ns.read { reader in
            reader.lookup("words", termPrefix: "jon", after: Array("joan".utf8)) { _ in true }
        }
        #expect(!refused)
    }

    @Test func writesStagedInOneRoundKeepTheIndexExact() async throws {
        let temp = try TemporaryStore.with(lookups: [NameWords()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("people", #"{"a":{"name":"One Two"},"b":{"name":"Two Three"}}"#)
        var writes: [Write] = []
        for n in 0..<40 {
            let who = ["a", "b", "c", "d"][n % 4]
            let name = ["Red Fox", "Blue Fox", "Red Owl", "Grey Owl"][(n / 4) % 4]
            writes.append(Write(.set(path("people/\(who)/name"), try value(#""\#(name) \#(n)""#))))
            if n % 7 == 0 { writes.append(Write(.set(path("people/\(who)"), try value(#"{"name":"Renamed \#(n)"}"#)))) }
            if n % 11 == 0 { writes.append(Write(.set(path("people/\(who)/name"), .init(node: nil)))) }
        }
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.wordsAgree())
        #expect(try await ns.people("36") == ["a"])
    }

    @Test func anImportRebuildsTheIndex() async throws {
        let temp = try TemporaryStore.with(lookups: [NameWords()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("people/old/name", #""Old Name""#)
        let document = Array(#"{"people":{"x":{"name":"Imported Person"},"y":{"name":"Another Person"}}}"#.utf8)
        try await ns.importJSON(at: .root, nextChunk: ImportExportTests.chunks(document, size: 9))
        #expect(try await ns.people("person") == ["x", "y"])
        #expect(try await ns.people("old") == [])
        #expect(try await ns.wordsAgree())
    }

    @Test func reopeningRebuildsAChangedIndexAndDropsAnUnregisteredOne() async throws {
        let temp = try TemporaryStore.with(lookups: [NameWords()])
        defer { temp.destroy() }
        var ns = try temp.store.namespace("default")
        try await ns.set("people/p1/name", #""Kept Name""#)
        // Without the index, writes are not indexed: its entries are dropped at open...
        try temp.reopen(triggers: WriteTriggers())
        ns = try temp.store.namespace("default")
        try await ns.set("people/p2/name", #""Written Unindexed""#)
        #expect(try await ns.read { reader in reader.lookup("words", term: "kept") } == [])
        // ...and rebuilt, with what was written meanwhile, when it comes back.
        try temp.reopen(triggers: .with(lookups: [NameWords()]))
        ns = try temp.store.namespace("default")
        #expect(try await ns.people("unindexed") == ["p2"])
        #expect(try await ns.people("kept") == ["p1"])
        // A new version rebuilds too: entries it would not make are gone.
        try await ns.set("people/p3/name", #""Third""#)
        try temp.reopen(triggers: .with(lookups: [NameWords(version: 2)]))
        ns = try temp.store.namespace("default")
        #expect(try await ns.people("third") == ["p3"])
        #expect(try await ns.wordsAgree())
    }

    @Test func aStoreOpenedOnlyToReadLeavesTheIndexesAsTheyAre() async throws {
        let temp = try TemporaryStore.with(lookups: [NameWords()])
        defer { temp.destroy() }
        var ns = try temp.store.namespace("default")
        try await ns.set("people/p1/name", #""Kept Name""#)
        var readOnly = StoreConfiguration()
        readOnly.reconcilesLookups = false
        temp.store.close()
        let store = try Store.open(directory: temp.directory, configuration: readOnly)
        ns = try store.namespace("default")
        #expect(try await ns.people("kept") == ["p1"])
        store.close()
        try temp.reopen(triggers: .with(lookups: [NameWords()]))
        ns = try temp.store.namespace("default")
        #expect(try await ns.lookupsAreCurrent())
        #expect(try await ns.people("kept") == ["p1"])
    }

    @Test func registrationRefusesBadNamesAndPatterns() throws {
        struct Named: LookupIndex {
            let name: String
            var pattern = "/a/$b"
            var version: Int { 1 }
            func terms(of value: Node, wildcards: [String: String]) -> [String] { [] }
        }
        var triggers = WriteTriggers()
        #expect(throws: StoreError.self) { try triggers.add(Named(name: "")) }
        #expect(throws: StoreError.self) { try triggers.add(Named(name: String(repeating: "n", count: 65))) }
        #expect(throws: StoreError.self) { try triggers.add(Named(name: "p", pattern: "/a/$")) }
        try triggers.add(Named(name: "taken"))
        #expect(throws: StoreError.self) { try triggers.add(Named(name: "taken", pattern: "/c/$d")) }
        // One name per namespace: the same index may serve several.
        try triggers.add(Named(name: "each"), in: .namespace("a"))
        try triggers.add(Named(name: "each"), in: .namespace("b"))
        #expect(throws: StoreError.self) { try triggers.add(Named(name: "each"), in: .namespace("b")) }
    }
}
