import HearthCore
import Testing

@testable import HearthStore

@Suite struct LocatedEntriesTests {
    let keys = KeySpace(namespaceID: 9)

    /// Each entry's key, encoded from the base's, is the path's own data key (integer and
    /// string keys, priorities, the base itself).
    @Test func eachKeyIsItsPathsDataKey() throws {
        let relatives = [
            "userChats/u1/c1/unread", "userChats/u1/c1/lastMessageAt", "unreadTotals/u1",
            "userChats/u1/c2/unread", "userChats/u2/c1/unread", "userChats/u2/c1",
            "a/7/x", "a/7/y", "a/07/y", "a/7/.priority", "a/7/z/deeper", "a/8", "", "b/ü/é", "b/ü/e",
        ]
        for base in ["", "root/12"] {
            let located = LocatedEntries(
                base: path(base),
                relatives: relatives.map { $0.isEmpty ? DataPath.root : path($0) },
                keys: keys
            )
            for (index, relative) in relatives.enumerated() {
                let full = path(base).appending(relative.isEmpty ? .root : path(relative))
                let owner = full.isPriorityPath ? full.parent! : full
                #expect(located.dataKeys[index] == keys.dataKey(owner), "\(relative) under '\(base)'")
            }
        }
    }
}
