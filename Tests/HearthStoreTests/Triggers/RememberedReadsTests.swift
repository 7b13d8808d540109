import HearthCore
import Testing

@testable import HearthStore

/// Adds each new post of a group to its members' inboxes, weighted by the member's value (a
/// number, else 1): the chat trigger's read of a member list (`TriggerSnapshot.shallow`), which
/// the writer remembers (`RememberedReads`) while nothing changes it.
struct GroupInbox: WriteTrigger {
    var pattern: String { "/posts/$group/$post" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        guard change.before == nil, change.after != nil else { return [] }
        let group = ChildKey(change.wildcards["group"]!)
        let members = DataPath(keys: [ChildKey("groups"), group, ChildKey("members")])
        guard case .children(let listed) = change.snapshot.shallow(at: members) else { return [] }
        return listed.map { member in
            var weight = 1.0
            if case .number(let number)? = member.leaf { weight = number }
            return .increment(DataPath(keys: [ChildKey("inbox"), member.key, group]), by: weight)
        }
    }
}

@Suite(.timeLimit(.minutes(3))) struct RememberedReadsTests {
    static func namespace(_ temp: TemporaryStore) async throws -> NamespaceStore {
        try temp.store.namespace("default")
    }

    static func post(_ ns: NamespaceStore, _ id: String) async throws {
        try await ns.set("posts/g/\(id)", #"{"text":"hi"}"#)
    }

    @Test func aRememberedMemberListFollowsEveryChangeToIt() async throws {
        let temp = try TemporaryStore.with([GroupInbox()])
        defer { temp.destroy() }
        let ns = try await Self.namespace(temp)
        try await ns.set("groups/g/members", #"{"a":true,"b":true}"#)
        try await Self.post(ns, "p1")
        try await Self.post(ns, "p2")
        #expect(try await ns.json("inbox") == #"{"a":{"g":2},"b":{"g":2}}"#)
        let key = ns.keys.dataKey(DataPath(keys: [ChildKey("groups"), ChildKey("g"), ChildKey("members")]))
        #expect(ns.writer.inspect { $0.shapes.reads.listing(at: key) } != nil, "not remembered")
        // Below: a member joins, one leaves, one's value changes (twice: then in place, as the
        // writer remembers that leaf).
        try await ns.set("groups/g/members/c", "true")
        #expect(ns.writer.inspect { $0.shapes.reads.listing(at: key) } == nil, "kept after a member joined")
        try await Self.post(ns, "p3")
        try await ns.set("groups/g/members/a", "null")
        try await Self.post(ns, "p4")
        try await ns.set("groups/g/members/b", "2")
        try await ns.set("groups/g/members/b", "3")
        try await Self.post(ns, "p5")
        #expect(try await ns.json("inbox") == #"{"a":{"g":3},"b":{"g":7},"c":{"g":3}}"#)
        // At and above: the list replaced, then the whole group.
        try await ns.set("groups/g/members", #"{"d":true}"#)
        try await Self.post(ns, "p6")
        try await ns.set("groups", #"{"g":{"members":{"e":true}}}"#)
        try await Self.post(ns, "p7")
        // A priority on a member changes nothing the listing shows, but is a write below it.
        try await ns.set("groups/g/members/e/.priority", "1")
        try await Self.post(ns, "p8")
        #expect(try await ns.json("inbox/d") == #"{"g":1}"#)
        #expect(try await ns.json("inbox/e") == #"{"g":2}"#)
        #expect(try await ns.json("inbox/c") == #"{"g":3}"#)
    }

    @Test func aMemberChangeStagedInTheSameRoundIsSeenByTheNextPost() async throws {
        let temp = try TemporaryStore.with([GroupInbox()])
        defer { temp.destroy() }
        let ns = try await Self.namespace(temp)
        try await ns.set("groups/g/members", #"{"a":true}"#)
        try await Self.post(ns, "p0")
        let rounds: [[(String, String)]] = [
            [("posts/g/p1", #"{"t":1}"#), ("groups/g/members/b", "true"), ("posts/g/p2", #"{"t":1}"#)],
            [("groups/g/members/c", "5"), ("posts/g/p3", #"{"t":1}"#), ("posts/g/p4", #"{"t":1}"#)],
            [("posts/g/p5", #"{"t":1}"#), ("groups/g/members/a", "null"), ("posts/g/p6", #"{"t":1}"#)],
        ]
        for round in rounds {
            let writes = try round.map { path, json in
                Write(.set(HearthStoreTests.path(path), try value(json)))
            }
            for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        }
        // a: p0, p1, p2, p3, p4, p5; b: p2 … p6; c: p3 … p6, 5 each.
        #expect(try await ns.json("inbox") == #"{"a":{"g":6},"b":{"g":5},"c":{"g":20}}"#)
    }

    /// The invalidation rules on their own, with data keys of one namespace.
    @Test func writesAtAboveOrBelowAListingForgetIt() {
        let keys = KeySpace(namespaceID: 7)
        func key(_ string: String) -> [UInt8] { keys.dataKey(path(string)) }
        func forget(_ listings: RememberedReads, _ paths: String...) {
            let written = paths.map(key)
            listings.forget(touchedBy: written, hashes: written.map(SubtreeShapes.hash))
        }
        let members: ShallowResult = .children([(ChildKey("a"), .bool(true))])
        let listings = RememberedReads()
        listings.remember(members, at: key("m/g1"))
        listings.remember(members, at: key("m/g2"))
        listings.remember(members, at: key("n"))
        forget(listings, "m/g3/a", "inbox/a/g1", "m2", "posts/g1/p")
        #expect(listings.listing(at: key("m/g1")) == members)
        #expect(listings.listing(at: key("n")) == members)
        forget(listings, "m/g1/b/deep")
        #expect(listings.listing(at: key("m/g1")) == nil)
        #expect(listings.listing(at: key("m/g2")) == members)
        forget(listings, "n/x")
        #expect(listings.listing(at: key("n")) == nil)
        forget(listings, "m")
        #expect(listings.listing(at: key("m/g2")) == nil)
        listings.remember(members, at: key("m/g2"))
        forget(listings, "m/g2")
        #expect(listings.isEmpty)
        listings.remember(members, at: key("m/g2"))
        forget(listings, "")
        #expect(listings.isEmpty)
        // The root and listings longer than `maxChildren` are not remembered.
        listings.remember(members, at: key(""))
        let long: ShallowResult = .children(
            (0...RememberedReads.maxChildren).map { (ChildKey("k\($0)"), nil) }
        )
        listings.remember(long, at: key("big"))
        #expect(listings.isEmpty)
    }
}
