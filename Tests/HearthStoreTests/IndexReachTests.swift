import HearthCore
import HearthTestSupport
import Testing

@testable import HearthStore

/// `IndexMaintenance.indexesToUpdate` looks only at the keys that start with an index's fixed part,
/// found by a binary search over the write's keys in key order, when every key is longer than
/// that part. Whatever the keys, it must answer as looking at every key does.
@Suite struct IndexReachTests {
    static let indexes = [
        IndexSpec(location: [.key(ChildKey("uc")), .wildcard("$u")], indexed: .child(path("at"))),
        IndexSpec(location: [.key(ChildKey("uc")), .wildcard("$u")], indexed: .child(path("n"))),
        IndexSpec(location: [.key(ChildKey("users"))], indexed: .child(path("name"))),
        IndexSpec(location: [.key(ChildKey("a")), .key(ChildKey("b")), .wildcard("$x")], indexed: .value),
        IndexSpec(location: [.wildcard("$top"), .key(ChildKey("list"))], indexed: .child(path("at"))),
    ]

    /// Paths a write may touch: inside kept lists and small ones, above the lists, beside the
    /// fixed parts (`ucx`, `user`, `a/bb`), and at the root's children.
    static let pool: [String] = {
        var paths = [
            "uc", "uc/u1", "uc/u2", "users", "a", "a/b", "a/bb/x/y", "user/z", "ucx/u1/c1/at", "zz", "top/list",
        ]
        for chat in 100..<110 {
            paths += ["uc/u1/c\(chat)/at", "uc/u1/c\(chat)/n", "uc/u2/c\(chat)/at", "uc/u3/c\(chat)"]
        }
        for user in 0..<5 {
            paths += ["users/p\(user)/name", "users/p\(user)/age", "a/b/x\(user)", "t\(user)/list/k/at"]
        }
        return paths
    }()

    @Test func theKeysFoundByBinarySearchAnswerAsEveryKeyDoes() async throws {
        let temp = try TemporaryStore(smallListLimit: 4)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes(Self.indexes)
        // uc/u1 grows past the limit and is queried, so it keeps entries; uc/u2 stays small.
        let chats = (100..<110).map { #""c\#($0)": {"at": \#($0), "n": 1}"# }.joined(separator: ",")
        try await ns.set("uc/u1", "{\(chats)}")
        try await ns.set("uc/u2/c100", #"{"at": 1}"#)
        _ = try await ns.read { try $0.query(at: path("uc/u1"), Query(order: .child(path("at")))) }
        try await eventually(timeout: .seconds(5), interval: .milliseconds(5)) {
            (try? ns.readNow { reader in
                var markers = 0
                for index in reader.indexes {
                    reader.scan(reader.keys.keptListPrefix(index.id)) { _, _ in markers += 1 }
                }
                return markers
            }) ?? 0 > 0
        }
        var generator = SystemRandomNumberGenerator()
        var answers = Set<Bool>()
        var reachedEach = Set<UInt32>()
        try ns.readNow { reader in
            func mayUpdate(_ paths: [String], searching: Bool) -> [UInt32] {
                let dataKeys = paths.map { reader.keys.dataKey(path($0)) }
                let order = dataKeys.indices.sorted { KeyBytes.precedes(dataKeys[$0], dataKeys[$1]) }
                return IndexMaintenance.indexesToUpdate(
                    dataKeys,
                    inKeyOrder: order,
                    reader: reader,
                    keptLists: nil,
                    searching: searching
                ).map(\.id)
            }
            for _ in 0..<600 {
                let count = Int.random(in: 1...12, using: &generator)
                let drawn = Set((0..<count).map { _ in Self.pool.randomElement(using: &generator)! })
                // One write's locations never contain one another.
                let paths = drawn.filter { inner in !drawn.contains { inner.hasPrefix($0 + "/") } }.sorted()
                let everyKey = mayUpdate(paths, searching: false)
                #expect(mayUpdate(paths, searching: true) == everyKey, "\(paths)")
                answers.insert(!everyKey.isEmpty)
                reachedEach.formUnion(everyKey)
            }
        }
        // Both answers came up, and every index was reached by some write.
        #expect(answers == [true, false])
        #expect(reachedEach.count == Self.indexes.count)
    }
}
