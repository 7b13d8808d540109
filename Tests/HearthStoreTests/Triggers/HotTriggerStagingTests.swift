import HearthCore
import Testing

@testable import HearthStore

/// `/latest/<list>` names the last item of `/lists/<list>/items` by key as each write leaves it,
/// and `/tally/<list>` counts the items by reading the count it set last (a leaf the writer
/// remembers once it wrote it twice): the reads a chat message's trigger makes (the chat's
/// newest message, each member's `lastMessageAt`).
struct LatestItem: WriteTrigger {
    var pattern: String { "/lists/$list/items/$item" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        guard change.before == nil, change.after != nil else { return [] }
        let list = ChildKey(change.wildcards["list"]!)
        let items = DataPath(keys: [ChildKey("lists"), list, ChildKey("items")])
        let tally = DataPath(keys: [ChildKey("tally"), list])
        var count = 0.0
        if case .number(let stored)? = change.snapshot.leaf(at: tally) { count = stored }
        let latest = change.written.lastChild(at: items).map { Node.leaf(.string($0.key.string), priority: nil) }
        return [
            .set(DataPath(keys: [ChildKey("latest"), list]), latest),
            .set(tally, .leaf(.number(count + 1), priority: nil)),
        ]
    }
}

/// Triggered writes into one hot list in one round (a chat's messages from several senders):
/// staged as one group when what their trigger read cannot have been changed by the ones staged
/// before them, planned again after a flush when it can.
@Suite(.timeLimit(.minutes(3))) struct HotTriggerStagingTests {
    /// A list whose `latest` and `tally` the writer remembers (written twice).
    static func warmList(_ temp: TemporaryStore) async throws -> NamespaceStore {
        let ns = try temp.store.namespace("default")
        try await ns.set("lists/l/items/i01", "true")
        try await ns.set("lists/l/items/i02", "true")
        return ns
    }

    static func item(_ key: String) throws -> Write {
        Write(.set(path("lists/l/items/\(key)"), try value("true")))
    }

    @Test func newerItemsOfOneRoundAreStagedAsOneGroup() async throws {
        let temp = try TemporaryStore.with([LatestItem()])
        defer { temp.destroy() }
        let ns = try await Self.warmList(temp)
        let groups = temp.probe.groupsApplied
        let results = try await ns.writeInOneRound(try ["i03", "i04", "i05", "i06"].map(Self.item))
        for result in results { _ = try result.get() }
        #expect(temp.probe.groupsApplied == groups + 1)
        #expect(try await ns.json("latest/l") == #""i06""#)
        #expect(try await ns.json("tally/l") == "6")
    }

    /// An item staged before a write whose key sorts before it is the latest, which the later
    /// write's trigger cannot see in the snapshot: it waits for the flush and runs again.
    @Test func anOlderItemAfterANewerStagedOneSeesTheNewerOne() async throws {
        let temp = try TemporaryStore.with([LatestItem()])
        defer { temp.destroy() }
        let ns = try await Self.warmList(temp)
        let groups = temp.probe.groupsApplied
        let results = try await ns.writeInOneRound(try ["i09", "i05", "i07"].map(Self.item))
        for result in results { _ = try result.get() }
        #expect(temp.probe.groupsApplied > groups + 1)
        #expect(try await ns.json("latest/l") == #""i09""#)
        #expect(try await ns.json("tally/l") == "5")
    }

    /// The tally the writer does not remember yet (written once) is read from the store: a
    /// write after a staged one that changed it waits for the flush.
    @Test func aLeafTheWriterDoesNotRememberIsReadAfterTheFlush() async throws {
        let temp = try TemporaryStore.with([LatestItem()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("seed", "1")
        let results = try await ns.writeInOneRound(try ["i01", "i02", "i03"].map(Self.item))
        for result in results { _ = try result.get() }
        #expect(try await ns.json("tally/l") == "3")
        #expect(try await ns.json("latest/l") == #""i03""#)
    }

    /// A set of the tally staged in the same round is what the next item counts from.
    @Test func aTallySetInTheRoundIsCountedFrom() async throws {
        let temp = try TemporaryStore.with([LatestItem()])
        defer { temp.destroy() }
        let ns = try await Self.warmList(temp)
        let writes = [
            try Self.item("i03"),
            Write(.set(path("tally/l"), try value("10"))),
            try Self.item("i04"),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("tally/l") == "11")
        #expect(try await ns.json("latest/l") == #""i04""#)
    }

    /// A write at the list staged before an item changes its last child, whatever the key.
    @Test func aWriteOverTheListBeforeAnItemIsSeen() async throws {
        let temp = try TemporaryStore.with([LatestItem()])
        defer { temp.destroy() }
        let ns = try await Self.warmList(temp)
        let writes = [
            Write(.update(path("lists/l/items"), [UpdateEntry(path: path("z9"), value: try value(#"{"x":1}"#))])),
            try Self.item("i03"),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("latest/l") == #""z9""#)
    }

    /// With `isLastChild`, an item older than one staged before it in the round knows it is
    /// not the latest without the flush: the round stays one group.
    @Test func anOlderItemAfterANewerStagedOneStaysInTheGroupWithIsLastChild() async throws {
        let temp = try TemporaryStore.with([LastItemByIsLastChild()])
        defer { temp.destroy() }
        let ns = try await Self.warmList(temp)
        let groups = temp.probe.groupsApplied
        let results = try await ns.writeInOneRound(try ["i09", "i05", "i07", "i10", "i08"].map(Self.item))
        for result in results { _ = try result.get() }
        #expect(temp.probe.groupsApplied == groups + 1)
        #expect(try await ns.json("latest/l") == #""i10""#)
        #expect(try await ns.json("count/l") == "7")
    }

    /// A write over the list staged before an item: `isLastChild` cannot tell what it left, so
    /// the item waits for the flush and sees it.
    @Test func isLastChildAfterAWriteOverTheListSeesIt() async throws {
        let temp = try TemporaryStore.with([LastItemByIsLastChild()])
        defer { temp.destroy() }
        let ns = try await Self.warmList(temp)
        let writes = [
            Write(.set(path("lists/l/items"), try value(#"{"a1":true,"z9":true}"#))),
            try Self.item("i03"),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("latest/l") == #""z9""#)
        // i01 and i02 (the warm list), a1 and z9, then i03.
        #expect(try await ns.json("count/l") == "5")
    }
}

/// `LatestItem` through `isLastChild`: `/latest/<list>` is set by the newest item only, and
/// `/count/<list>` counts every item by an increment.
struct LastItemByIsLastChild: WriteTrigger {
    var pattern: String { "/lists/$list/items/$item" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        let list = ChildKey(change.wildcards["list"]!)
        let items = DataPath(keys: [ChildKey("lists"), list, ChildKey("items")])
        let latest = DataPath(keys: [ChildKey("latest"), list])
        let count = DataPath(keys: [ChildKey("count"), list])
        guard change.before == nil, change.after != nil else {
            // Replaced or deleted: the latest is read again.
            let last = change.written.lastChild(at: items).map { Node.leaf(.string($0.key.string), priority: nil) }
            return [.set(latest, last)]
        }
        let item = ChildKey(change.wildcards["item"]!)
        var updates = [DerivedUpdate.increment(count, by: 1)]
        if change.written.isLastChild(item, at: items) {
            updates.append(.set(latest, .leaf(.string(item.string), priority: nil)))
        }
        return updates
    }
}
