import HearthCore
import Testing

@testable import HearthStore

/// A kept layout of derived updates, merged with a write's own locations, lands exactly where
/// locating the combined write from scratch does, and refuses the same overlaps.
@Suite struct DerivedLayoutsTests {
    let keys = KeySpace(namespaceID: 4)

    private func updates(_ paths: [DataPath]) -> [DerivedUpdate] {
        paths.map { .increment($0, by: 1) }
    }

    private func fanout(_ chat: String, members: Int) -> [DataPath] {
        (0..<members).flatMap { member in
            [
                path("userChats/u\(member)/\(chat)/unread"), path("userChats/u\(member)/\(chat)/lastMessageAt"),
                path("unreadTotals/u\(member)"),
            ]
        }
    }

    @Test func aMergedLayoutMatchesTheCombinedWritesLocations() throws {
        let layouts = DerivedLayouts()
        let derived = fanout("c1", members: 20) + [path("chats/c1/lastMessage")]
        let leadingCases: [[String]] = [
            ["messages/c1/m1"], ["aaa"], ["zzz"], ["userChats/u3/c2/unread"], ["userChats/u3"],
            ["unreadTotals/u10x", "chats/c2", "messages/c1/m2"], ["userChats/u1/c1/unreadX", "7/x"],
        ]
        for (round, leading) in leadingCases.enumerated() {
            let layout = try #require(layouts.layout(of: updates(derived), keys: keys))
            #expect(layouts.hits == round)
            let located = WriteLocations(leading: leading.map(path), then: layout, keys: keys)
            let entries = (leading.map(path) + derived).map {
                UpdateEntry(path: $0, value: NewValue(node: .leaf(.number(1), priority: nil)))
            }
            let fresh = try? WriteLocations(of: Write(.update(.root, entries)), keys: keys)
            let userChatsU3 = leading == ["userChats/u3"]
            #expect((located == nil) == userChatsU3, "\(leading)")
            #expect((fresh == nil) == userChatsU3, "\(leading)")
            guard let located, let fresh else { continue }
            #expect(located.located.dataKeys == fresh.located.dataKeys, "\(leading)")
            #expect(located.order == fresh.order, "\(leading)")
            #expect(located.hashes == fresh.hashes, "\(leading)")
            #expect(located.located.relatives == fresh.located.relatives, "\(leading)")
        }
    }

    @Test func overlapsAreRefusedAsTheFreshCheckRefusesThem() throws {
        let layouts = DerivedLayouts()
        let derived = fanout("c1", members: 10)
        let layout = try #require(layouts.layout(of: updates(derived), keys: keys))
        // Inside a derived location, containing one, the same one.
        for leading in ["unreadTotals/u1/x", "userChats/u2/c1", "userChats/u2/c1/unread", "unreadTotals", ""] {
            let paths = [leading.isEmpty ? DataPath.root : path(leading)]
            #expect(WriteLocations(leading: paths, then: layout, keys: keys) == nil, "\(leading)")
        }
        // Two leading locations overlapping each other.
        #expect(WriteLocations(leading: [path("a/b"), path("a")], then: layout, keys: keys) == nil)
        // A derived list that overlaps itself has no layout.
        #expect(layouts.layout(of: updates(derived + [path("userChats/u1")]), keys: keys) == nil)
        #expect(layouts.layout(of: updates(derived + [derived[4]]), keys: keys) == nil)
    }

    /// A kept layout vouches for the paths of every list found at it: none is a priority or
    /// the root (the trigger run checks no further).
    @Test func aListWithAPriorityOrTheRootHasNoLayout() throws {
        let layouts = DerivedLayouts()
        let derived = fanout("c1", members: 10)
        for odd in [path("userChats/u1/c9/.priority"), DataPath.root] {
            var paths = derived
            paths[3] = odd
            #expect(layouts.layout(of: updates(paths), keys: keys) == nil)
        }
        _ = try #require(layouts.layout(of: updates(derived), keys: keys))
        var priority = derived
        priority[3] = path("userChats/u1/c9/.priority")
        #expect(layouts.layout(of: updates(priority), keys: keys) == nil)
        #expect(layouts.hits == 0)
    }

    @Test func aChangedListIsLocatedAgain() throws {
        let layouts = DerivedLayouts()
        let derived = fanout("c1", members: 10)
        _ = try #require(layouts.layout(of: updates(derived), keys: keys))
        var changed = derived
        changed[7] = path("userChats/u99/c1/unread")
        let layout = try #require(layouts.layout(of: updates(changed), keys: keys))
        #expect(layouts.hits == 0)
        #expect(layout.dataKeys[7] == keys.dataKey(path("userChats/u99/c1/unread")))
        _ = try #require(layouts.layout(of: updates(Array(derived.dropLast())), keys: keys))
        #expect(layouts.hits == 0)
        _ = try #require(layouts.layout(of: updates(Array(derived.dropLast())), keys: keys))
        #expect(layouts.hits == 1)
    }

    /// What is kept is bounded: a list over the whole bound is located but not kept.
    @Test func aListOverTheBoundIsNotKept() throws {
        let layouts = DerivedLayouts()
        let huge = updates((0...DerivedLayouts.capacityOfPaths).map { path("counts/k\($0)") })
        _ = try #require(layouts.layout(of: huge, keys: keys))
        _ = try #require(layouts.layout(of: huge, keys: keys))
        #expect(layouts.hits == 0)
        let small = updates(fanout("c1", members: 10))
        _ = try #require(layouts.layout(of: small, keys: keys))
        _ = try #require(layouts.layout(of: small, keys: keys))
        #expect(layouts.hits == 1)
    }
}
