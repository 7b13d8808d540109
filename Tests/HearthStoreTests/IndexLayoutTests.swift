import HearthCore
import Testing

@testable import HearthStore

/// The index layout of docs/decisions/0020: one `I` entry per child of an indexed list and no
/// reverse entry; a store written by the earlier layout (with `R` reverse entries) opens with
/// them removed and its indexes exact.
@Suite struct IndexLayoutTests {
    static let chatList = IndexSpec(location: [.key(ChildKey("uc")), .wildcard("$u")], indexed: .child(path("at")))
    static let byValue = IndexSpec(location: [.key(ChildKey("scores"))], indexed: .value)

    /// What the earlier layout wrote beside each index entry: `R` + nsId + indexId + list +
    /// child → the encoded indexed value (the old writer, kept here to make such a store).
    static func oldReverseEntries(_ ns: NamespaceStore) throws -> WriteBatch {
        let batch = WriteBatch()
        try ns.readNow { reader in
            for index in reader.indexes {
                IndexBuilder(reader: reader, index: index, flush: { _ in }).forEachList { list in
                    reader.forEachEntry(of: list, in: index) { key in
                        batch.put(
                            Self.reverseKey(of: key, index, reader.keys),
                            Self.reverseValue(of: key, index, reader.keys)
                        )
                        return true
                    }
                    return true
                }
            }
        }
        return batch
    }

    /// An entry key's list, value and child: the key is table + list + value + child.
    private static func parts(
        of key: [UInt8],
        _ index: RegisteredIndex,
        _ keys: KeySpace
    )
        -> (list: ArraySlice<UInt8>, value: ArraySlice<UInt8>, child: ArraySlice<UInt8>)
    {
        let rest = Array(key[keys.indexPrefix(index.id).count...])
        let depth = index.spec.location.count
        let listEnd = rest.withUnsafeBytes { IndexMaintenance.segmentsEnd($0, from: 0, count: depth)! }
        let childStart = (listEnd..<rest.count).first { start in
            let child = Array(rest[start...])
            return child.withUnsafeBytes { KeyEncoding.segmentEnd($0, from: 0) } == child.count
                && Self.isValueThenChild(rest[listEnd..<start])
        }!
        return (rest[..<listEnd], rest[listEnd..<childStart], rest[childStart...])
    }

    /// The old reverse key: the same list and child under `R`.
    private static func reverseKey(of key: [UInt8], _ index: RegisteredIndex, _ keys: KeySpace) -> [UInt8] {
        let (list, _, child) = parts(of: key, index, keys)
        var reverse = KeySpace.prefix(KeySpace.retiredReverseTable, keys.namespaceID)
        KeySpace.appendBigEndian(index.id, to: &reverse)
        reverse += list
        reverse += child
        return reverse
    }

    /// The old reverse entry's value: the entry's encoded value.
    private static func reverseValue(of key: [UInt8], _ index: RegisteredIndex, _ keys: KeySpace) -> [UInt8] {
        Array(parts(of: key, index, keys).value)
    }

    /// True when `bytes` is one whole encoded index value (as `IndexValueEncoding` writes them).
    static func isValueThenChild(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let tag = bytes.first else { return false }
        switch tag {
        case 0x01, 0x02, 0x03, 0x06: return bytes.count == 1
        case 0x04: return bytes.count == 9
        default: return bytes.count >= 3 && bytes.suffix(2).elementsEqual([0x00, 0x01])
        }
    }

    static func retiredReverseEntryCount(_ ns: NamespaceStore) throws -> Int {
        try ns.readNow { reader in
            var count = 0
            reader.scan(reader.keys.retiredReversePrefix) { _, _ in count += 1 }
            return count
        }
    }

    @Test func aStoreWithReverseEntriesOpensWithThemRemovedAndItsIndexesExact() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.chatList, Self.byValue])
        try await ns.set(
            "uc",
            #"{"u1": {"c1": {"at": 1, "n": 1}, "c2": {"at": 2}, "c3": {"x": true}}, "u2": {"c1": {"at": "s"}}}"#
        )
        try await ns.set("scores", #"{"a": 3, "b": "x", "c": {"d": 1}}"#)
        try ns.db.write(try Self.oldReverseEntries(ns), sync: false)
        #expect(try Self.retiredReverseEntryCount(ns) == 7)

        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        #expect(try Self.retiredReverseEntryCount(reopened) == 0)
        #expect(try await reopened.indexDisagreements().isEmpty)
        // Written on from the data alone: each old entry found from the pre-image and replaced.
        try await reopened.update("", [("uc/u1/c1/at", "10"), ("uc/u1/c3/at", "0"), ("scores/a", "-1")])
        try await reopened.set("uc/u2/c1", "null")
        #expect(try await reopened.indexDisagreements().isEmpty)
        let ordered = try await reopened.read { try $0.query(at: path("uc/u1"), Query(order: .child(path("at")))) }
        #expect(ordered.map(\.key.string) == ["c3", "c2", "c1"])
        let scores = try await reopened.read { try $0.query(at: path("scores"), Query(order: .value)) }
        #expect(scores.map(\.key.string) == ["a", "b", "c"])
        #expect(try Self.retiredReverseEntryCount(reopened) == 0)
    }

    @Test func theRemovalGoesOnBatchAfterBatchUntilNoneIsLeft() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.byValue])
        try await ns.set("scores", #"{"a": 3, "b": 1, "c": 2, "d": 0, "e": 5}"#)
        try ns.db.write(try Self.oldReverseEntries(ns), sync: false)
        #expect(try Self.retiredReverseEntryCount(ns) == 5)
        try await ns.writer.perform { round in try ns.removeRetiredReverseEntries(in: round, batchLimit: 2) }
        #expect(try Self.retiredReverseEntryCount(ns) == 0)
        #expect(try await ns.indexDisagreements().isEmpty)
    }

    /// The operations of two staged writes' batches (one changes two members' indexed values
    /// and a field beside one, the other only that field), in a store with `indexes`.
    static func operations(with indexes: [IndexSpec]) async throws -> [Int] {
        let temp = try TemporaryStore(smallListLimit: 0)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes(indexes)
        try await ns.set("uc", #"{"u1": {"c1": {"at": 1, "n": 1}}, "u2": {"c1": {"at": 1, "n": 1}}}"#)
        let changed = Write(
            .update(
                .root,
                [
                    UpdateEntry(path: path("uc/u1/c1/at"), value: try value("2")),
                    UpdateEntry(path: path("uc/u2/c1/at"), value: try value("2")),
                    UpdateEntry(path: path("uc/u1/c1/n"), value: try value("5")),
                ]
            )
        )
        let unchanged = Write(.update(.root, [UpdateEntry(path: path("uc/u1/c1/n"), value: try value("6"))]))
        var operations: [Int] = []
        for write in [changed, unchanged] {
            let groups = temp.probe.groupsApplied
            for result in try await ns.writeInOneRound([write]) { _ = try result.get() }
            #expect(temp.probe.groupsApplied == groups + 1)
            operations.append(temp.probe.lastGroupOperations)
        }
        #expect(try await ns.indexDisagreements().isEmpty)
        #expect(try retiredReverseEntryCount(ns) == 0)
        return operations
    }

    /// A changed indexed value costs a delete of the old entry and a put of the new one (no
    /// reverse entry); an unchanged one costs nothing: against the same writes unindexed.
    @Test func aChangedValueCostsTwoIndexKeysAndAnUnchangedOneNone() async throws {
        let indexed = try await Self.operations(with: [Self.chatList])
        let plain = try await Self.operations(with: [])
        #expect(indexed[0] - plain[0] == 2 * 2)
        #expect(indexed[1] == plain[1])
    }

    /// The check the model checks and `hearth chat check` rely on sees a stale entry: one
    /// whose value is not the data's counts as extra, and the right one as missing.
    @Test func theCheckCountsAStaleEntryAsExtraAndTheRightOneAsMissing() async throws {
        let temp = try TemporaryStore(smallListLimit: 0)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([Self.byValue])
        try await ns.set("scores", #"{"a": 3, "b": 1}"#)
        #expect(try await ns.indexDisagreements().isEmpty)
        let id = ns.registeredIndexes[0].id
        let batch = WriteBatch()
        let encoded = { (number: Double) in IndexValueEncoding.encode(.leaf(.number(number))) }
        batch.delete(ns.keys.indexEntryKey(id, list: path("scores"), value: encoded(3), child: ChildKey("a")))
        batch.put(ns.keys.indexEntryKey(id, list: path("scores"), value: encoded(2), child: ChildKey("a")), [])
        try ns.db.write(batch, sync: false)
        #expect(try await ns.indexDisagreements() == [.init(spec: Self.byValue, missing: 1, extra: 1)])
    }
}
