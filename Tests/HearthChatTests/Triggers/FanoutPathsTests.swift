import HearthCore
import HearthDatabase
import HearthStore
import HearthTestSupport
import Synchronization
import Testing

@testable import HearthChat

/// A chat's member locations are made once per namespace and member list: the same list gets
/// the very same paths (one storage, which the writer compares without reading), a changed list
/// its own; the locations a trigger reads carry their namespace's keys.
@Suite(.timeLimit(.minutes(3))) struct FanoutPathsTests {
    /// Asks the memo for a chat's locations from inside a trigger run, as the message trigger
    /// does: a write of `/ask/<chat>` with the member names as a space-separated string.
    struct Asker: TreeTrigger {
        let memo: FanoutPaths
        let answers: Answers

        var pattern: String { "/ask/$chat" }

        func updates(for change: TreeChange) throws -> [DerivedUpdate] {
            guard case .leaf(.string(let names), _)? = change.after else { return [] }
            let members = names.split(separator: " ").map { ChildKey(String($0)) }
            let chat = ChildKey(change.wildcards["chat"]!)
            let made = memo.paths(namespace: change.namespace, chat: chat, members: members, snapshot: change.snapshot)
            answers.list.withLock { $0.append(made) }
            return []
        }
    }

    final class Answers: Sendable {
        let list = Mutex<[[FanoutPaths.Member]]>([])
    }

    final class Probe: Sendable {
        let memo = FanoutPaths()
        let answers = Answers()
        let directory: TemporaryDirectory
        let store: Store

        init() throws {
            directory = try TemporaryDirectory(prefix: "hearth-fanout-paths")
            var triggers = DatabaseTriggers()
            try triggers.add(Asker(memo: memo, answers: answers))
            store = try Store.open(
                directory: directory.path,
                configuration: StoreConfiguration(triggers: triggers.registered)
            )
        }

        func ask(
            _ chat: String,
            _ members: String,
            in namespace: String = "default"
        ) async throws -> [FanoutPaths.Member] {
            let ns = try store.namespace(namespace)
            let names = Node.leaf(.string(members), priority: nil)
            _ = try await ns.write(Write(.set(try DataPath.parse("/ask/\(chat)"), NewValue(node: names))))
            return try #require(answers.list.withLock { $0.last })
        }

        func destroy() {
            store.close()
            directory.remove()
        }
    }

    private func storage(_ path: DataPath) -> UnsafeRawPointer? {
        path.keys.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func theSameListGetsTheSamePathsAndAChangedOneItsOwn() async throws {
        let probe = try Probe()
        defer { probe.destroy() }
        let first = try await probe.ask("c1", "u1 u2 u3")
        #expect(
            first.map(\.unread.description) == [
                "/userChats/u1/c1/unread", "/userChats/u2/c1/unread", "/userChats/u3/c1/unread",
            ]
        )
        #expect(first[1].lastMessageAt.path.description == "/userChats/u2/c1/lastMessageAt")
        #expect(first[1].name.path.description == "/userChats/u2/c1/name")
        #expect(first[2].unreadTotal.description == "/unreadTotals/u3")
        let again = try await probe.ask("c1", "u1 u2 u3")
        for (a, b) in zip(first, again) {
            #expect(storage(a.unread) == storage(b.unread))
            #expect(storage(a.unreadTotal) == storage(b.unreadTotal))
        }
        let changed = try await probe.ask("c1", "u1 u4")
        #expect(changed.map(\.unread.description) == ["/userChats/u1/c1/unread", "/userChats/u4/c1/unread"])
        #expect(storage(changed[0].unread) != storage(first[0].unread))
        let other = try await probe.ask("c2", "u1")
        #expect(other[0].unread.description == "/userChats/u1/c2/unread")
        // Another namespace's chat of the same name gets locations of its own.
        let elsewhere = try await probe.ask("c2", "u1", in: "other")
        #expect(storage(elsewhere[0].unread) != storage(other[0].unread))
    }
}
