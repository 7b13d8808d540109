import HearthCore
import Testing

@testable import HearthChat

/// A chat's member locations are made once per member list: the same list gets the very same
/// paths (one storage, which the writer compares without reading), a changed list its own.
@Suite struct FanoutPathsTests {
    private func keys(_ names: [String]) -> [ChildKey] { names.map(ChildKey.init) }

    private func storage(_ path: DataPath) -> UnsafeRawPointer? {
        path.keys.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func theSameListGetsTheSamePathsAndAChangedOneItsOwn() throws {
        let memo = FanoutPaths()
        let chat = ChildKey("c1")
        let first = memo.paths(chat: chat, members: keys(["u1", "u2", "u3"]))
        #expect(
            first.map(\.unread.description) == [
                "/userChats/u1/c1/unread", "/userChats/u2/c1/unread", "/userChats/u3/c1/unread",
            ]
        )
        #expect(first[1].lastMessageAt.description == "/userChats/u2/c1/lastMessageAt")
        #expect(first[1].name.description == "/userChats/u2/c1/name")
        #expect(first[2].unreadTotal.description == "/unreadTotals/u3")
        let again = memo.paths(chat: chat, members: keys(["u1", "u2", "u3"]))
        for (a, b) in zip(first, again) {
            #expect(storage(a.unread) == storage(b.unread))
            #expect(storage(a.unreadTotal) == storage(b.unreadTotal))
        }
        let changed = memo.paths(chat: chat, members: keys(["u1", "u4"]))
        #expect(changed.map(\.unread.description) == ["/userChats/u1/c1/unread", "/userChats/u4/c1/unread"])
        #expect(storage(changed[0].unread) != storage(first[0].unread))
        let other = memo.paths(chat: ChildKey("c2"), members: keys(["u1"]))
        #expect(other[0].unread.description == "/userChats/u1/c2/unread")
    }
}
