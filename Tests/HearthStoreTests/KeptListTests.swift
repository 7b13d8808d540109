import HearthCore
import HearthTestSupport
import Testing

@testable import HearthStore

/// Indexed lists keep entries only once a query finds them holding more than the store's
/// `smallListLimit` children (docs/decisions/0024): smaller lists cost a write no index key and
/// are ordered when read, with the same answers.
@Suite struct KeptListTests {
    static let chatList = IndexSpec(location: [.key(ChildKey("uc")), .wildcard("$u")], indexed: .child(path("at")))
    static let byAt = Query(order: .child(path("at")))

    /// The entries and list markers of the namespace's indexes.
    static func stored(_ ns: NamespaceStore) throws -> (entries: Int, markers: Int) {
        try ns.readNow { reader in
            var entries = 0
            var markers = 0
            for index in reader.indexes {
                reader.scan(reader.keys.indexPrefix(index.id)) { _, _ in entries += 1 }
                reader.scan(reader.keys.keptListPrefix(index.id)) { _, _ in markers += 1 }
            }
            return (entries, markers)
        }
    }

    /// `count` chats of user `user`, each with `at` its number counted down (so the order by
    /// `at` is the reverse of the keys').
    static func chats(_ count: Int) -> String {
        "{" + (0..<count).map { #""c\#($0 + 100)": {"at": \#(count - $0), "n": 1}"# }.joined(separator: ",") + "}"
    }

    static func keys(_ ns: NamespaceStore, _ list: String, _ query: Query) async throws -> [String] {
        try await ns.read { try $0.query(at: path(list), query) }.map(\.key.string)
    }

    @Test func aSmallListKeepsNoEntryAndIsOrderedWhenRead() async throws {
        let temp = try TemporaryStore(smallListLimit: 4)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.chatList])
        try await ns.set("uc/u1", Self.chats(4))
        try await ns.update("", [("uc/u1/c100/at", "0.5"), ("uc/u2/c1/at", "7")])
        #expect(try Self.stored(ns) == (0, 0))
        #expect(try await Self.keys(ns, "uc/u1", Self.byAt) == ["c100", "c103", "c102", "c101"])
        var last = Self.byAt
        last.limit = .last(2)
        last.start = QueryBound(value: .number(2), key: nil)
        #expect(try await Self.keys(ns, "uc/u1", last) == ["c102", "c101"])
        var first = Self.byAt
        first.limit = .first(1)
        first.end = QueryBound(value: .number(1), key: nil)
        #expect(try await Self.keys(ns, "uc/u1", first) == ["c100"])
        // Read at its limit, the list still keeps none.
        try await Task.sleep(for: .milliseconds(50))
        #expect(try Self.stored(ns) == (0, 0))
        #expect(try await ns.indexDisagreements().isEmpty)
        // Nothing of the index layout is written while no list keeps entries (a clustered
        // namespace's changelog carries no extra entry), and opening it again moves nothing.
        #expect(try ns.readNow { $0.snapshot.get(ns.keys.indexLayoutKey) } == nil)
        #expect(try !ns.needsMoveToKeptLists())
    }

    @Test func aQueryFindingMoreThanTheLimitHasTheListKeepEntriesFromThenOn() async throws {
        let temp = try TemporaryStore(smallListLimit: 4)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.chatList])
        for chat in 0..<6 { try await ns.set("uc/u1/c\(chat)", #"{"at": \#(10 - chat)}"#) }
        #expect(try Self.stored(ns) == (0, 0))
        #expect(try await Self.keys(ns, "uc/u1", Self.byAt) == ["c5", "c4", "c3", "c2", "c1", "c0"])
        try await eventually(timeout: .seconds(5), interval: .milliseconds(5)) {
            (try? Self.stored(ns)) ?? (0, 0) == (6, 1)
        }
        #expect(try await ns.indexDisagreements().isEmpty)
        #expect(try ns.readNow { $0.snapshot.get(ns.keys.indexLayoutKey) } != nil)
        // Kept from then on: a changed value moves its entry, a new child gets one.
        try await ns.update("", [("uc/u1/c5/at", "100"), ("uc/u1/c9", #"{"at": 0}"#)])
        #expect(try Self.stored(ns) == (7, 1))
        #expect(try await ns.indexDisagreements().isEmpty)
        #expect(try await Self.keys(ns, "uc/u1", Self.byAt) == ["c9", "c4", "c3", "c2", "c1", "c0", "c5"])
    }

    @Test func aWriteOfAWholeListPastTheLimitGivesItEntriesInItsOwnBatch() async throws {
        let temp = try TemporaryStore(smallListLimit: 4)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.chatList])
        try await ns.set("uc", #"{"u1": \#(Self.chats(5)), "u2": \#(Self.chats(3))}"#)
        #expect(try Self.stored(ns) == (5, 1))
        #expect(try await ns.indexDisagreements().isEmpty)
        // Replaced by a small list: its entries and marker go with the old data.
        try await ns.set("uc/u1", Self.chats(2))
        #expect(try Self.stored(ns) == (0, 0))
        #expect(try await ns.indexDisagreements().isEmpty)
        #expect(try await Self.keys(ns, "uc/u1", Self.byAt) == ["c101", "c100"])
    }

    /// A build cut short by a crash leaves entries without the list's marker: ignored by
    /// queries, and deleted by the next build before it writes the list's entries.
    @Test func entriesLeftWithoutAMarkerAreReplacedByTheNextBuild() async throws {
        let temp = try TemporaryStore(smallListLimit: 2)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.chatList])
        for chat in 0..<3 { try await ns.set("uc/u1/c\(chat)", #"{"at": \#(chat)}"#) }
        let index = ns.registeredIndexes[0]
        let stale = WriteBatch()
        let encoded = IndexValueEncoding.encode(.leaf(.number(42)))
        stale.put(ns.keys.indexEntryKey(index.id, list: path("uc/u1"), value: encoded, child: ChildKey("c0")), [])
        try ns.db.write(stale, sync: false)
        #expect(try await Self.keys(ns, "uc/u1", Self.byAt) == ["c0", "c1", "c2"])
        try await eventually(timeout: .seconds(5), interval: .milliseconds(5)) {
            (try? Self.stored(ns)) ?? (0, 0) == (3, 1)
        }
        #expect(try await ns.indexDisagreements().isEmpty)
    }

    /// A store of the layout before (every indexed list kept entries, no markers) opens with
    /// the lists past the limit marked and the smaller ones' entries gone; then it is written
    /// and read like any other.
    @Test func aStoreOfTheEarlierLayoutMovesToKeptListsWhenItOpens() async throws {
        let temp = try TemporaryStore(smallListLimit: 3)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.chatList])
        try await ns.set("uc", #"{"u1": \#(Self.chats(5)), "u2": \#(Self.chats(2)), "u3": \#(Self.chats(3))}"#)
        // As the earlier layout left it: an entry for every child of every list, no marker.
        let earlier = WriteBatch()
        try ns.readNow { reader in
            let index = reader.indexes[0]
            reader.scan(reader.keys.keptListPrefix(index.id)) { key, _ in earlier.delete(Array(key)) }
            earlier.delete(reader.keys.indexLayoutKey)
            for list in ["uc/u1", "uc/u2", "uc/u3"] {
                reader.forEachEntry(of: path(list), in: index) {
                    earlier.put($0, [])
                    return true
                }
            }
        }
        try ns.db.write(earlier, sync: false)
        #expect(try Self.stored(ns) == (10, 0))

        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        #expect(try Self.stored(reopened) == (5, 1))
        #expect(try reopened.readNow { $0.snapshot.get(reopened.keys.indexLayoutKey) } != nil)
        #expect(try !reopened.needsMoveToKeptLists())
        #expect(try await reopened.indexDisagreements().isEmpty)
        try await reopened.update("", [("uc/u1/c100/at", "0"), ("uc/u2/c100/at", "0")])
        #expect(try await reopened.indexDisagreements().isEmpty)
        #expect(try await Self.keys(reopened, "uc/u1", Self.byAt).first == "c100")
        #expect(try await Self.keys(reopened, "uc/u2", Self.byAt) == ["c100", "c101"])
    }

    /// The move goes on batch after batch, and a second run changes nothing.
    @Test func theMoveIsDoneInBatchesAndTwiceIsOnce() async throws {
        let temp = try TemporaryStore(smallListLimit: 1)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.chatList])
        var lists: [String] = []
        for user in 0..<6 { lists.append(#""u\#(user)": \#(Self.chats(user % 3 + 1))"#) }
        try await ns.set("uc", "{" + lists.joined(separator: ",") + "}")
        let before = try Self.stored(ns)
        let earlier = WriteBatch()
        try ns.readNow { reader in
            let index = reader.indexes[0]
            reader.scan(reader.keys.keptListPrefix(index.id)) { key, _ in earlier.delete(Array(key)) }
            for user in 0..<6 {
                reader.forEachEntry(of: path("uc/u\(user)"), in: index) {
                    earlier.put($0, [])
                    return true
                }
            }
        }
        try ns.db.write(earlier, sync: false)
        for _ in 0..<2 {
            try await ns.writer.perform { round in try ns.moveToKeptLists(in: round, batchLimit: 2) }
            #expect(try Self.stored(ns) == before)
            #expect(try await ns.indexDisagreements().isEmpty)
        }
    }

    /// A location with a fixed key after a wildcard: a write's keys are matched against every
    /// fixed segment (`RegisteredIndex.isList`) before a marker is asked for, so a kept list is
    /// refreshed by a multi-path update that also writes beside it, and the list beside it
    /// (another last key) keeps none.
    @Test func aKeptListBehindAWildcardIsRefreshedAndItsNeighbourIsNot() async throws {
        let temp = try TemporaryStore(smallListLimit: 2)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let spec = IndexSpec(
            location: [.key(ChildKey("g")), .wildcard("$g"), .key(ChildKey("m"))],
            indexed: .child(path("at"))
        )
        try await ns.setIndexes([spec])
        try await ns.set("g/x", #"{"m": \#(Self.chats(3)), "n": \#(Self.chats(3))}"#)
        #expect(try await Self.keys(ns, "g/x/m", Self.byAt) == ["c102", "c101", "c100"])
        try await eventually(timeout: .seconds(5), interval: .milliseconds(5)) {
            (try? Self.stored(ns)) ?? (0, 0) == (3, 1)
        }
        // One update: the kept list's child moves to the front; the same child under `n`
        // (not a list of the index) changes no entry.
        try await ns.update("g/x", [("m/c102/at", "9"), ("n/c100/at", "-1"), ("n/c103", #"{"at": 0}"#)])
        #expect(try Self.stored(ns) == (3, 1))
        #expect(try await Self.keys(ns, "g/x/m", Self.byAt) == ["c101", "c100", "c102"])
        #expect(try await ns.indexDisagreements().isEmpty)
        // A write under another list of the index, below the limit, keeps none either.
        try await ns.update("", [("g/y/m/c1/at", "1"), ("g/x/m/c100/at", "10")])
        #expect(try Self.stored(ns) == (3, 1))
        #expect(try await Self.keys(ns, "g/x/m", Self.byAt) == ["c101", "c102", "c100"])
        #expect(try await ns.indexDisagreements().isEmpty)
    }
}
