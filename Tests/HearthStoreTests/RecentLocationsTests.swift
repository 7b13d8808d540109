import HearthCore
import Testing

@testable import HearthStore

/// An update at the same paths as a recent one (new values) lands where working it out afresh
/// says; any other update is worked out afresh.
@Suite struct RecentLocationsTests {
    let keys = KeySpace(namespaceID: 6)

    private func update(_ base: String, _ relatives: [String], value: Double = 1) -> Write {
        let entries = relatives.map {
            UpdateEntry(path: path($0), value: NewValue(node: .leaf(.number(value), priority: nil)))
        }
        return Write(.update(path(base), entries))
    }

    private func expectSame(_ a: WriteLocations, _ b: WriteLocations) {
        #expect(a.located.dataKeys == b.located.dataKeys)
        #expect(a.order == b.order)
        #expect(a.hashes == b.hashes)
        #expect(a.located.relatives == b.located.relatives)
        #expect(a.located.base == b.located.base)
    }

    @Test func theSamePathsWithNewValuesAreLocatedOnce() throws {
        let recent = RecentLocations()
        let relatives = (0..<40).flatMap { ["userChats/u\($0)/c1/unread", "unreadTotals/u\($0)"] }
        let first = update("", relatives, value: 1)
        _ = try recent.locations(of: first, keys: keys)
        #expect(recent.hits == 0)
        let again = update("", relatives, value: 2)
        expectSame(try recent.locations(of: again, keys: keys), try WriteLocations(of: again, keys: keys))
        #expect(recent.hits == 1)
        // Another base, one path fewer: afresh, and right.
        for other in [update("x", relatives), update("", Array(relatives.dropLast()))] {
            expectSame(try recent.locations(of: other, keys: keys), try WriteLocations(of: other, keys: keys))
        }
        #expect(recent.hits == 1)
    }

    /// A message at a new key each time, first or last, with the same counters: the counters'
    /// keys are reused and the new ones merged in where a fresh sort puts them.
    @Test func aFewNewPathsAreMergedIntoAKeptOrder() throws {
        let recent = RecentLocations()
        let counters = (0..<30).flatMap { ["userChats/u\($0)/c1/unread", "unreadTotals/u\($0)"] }
        _ = try recent.locations(of: update("", ["messages/c1/m0"] + counters), keys: keys)
        var replacedInside = counters
        replacedInside[10] = "unreadTotals/u99x"
        replacedInside[20] = "a/b"
        let cases: [[String]] = [
            ["messages/c1/m1"] + counters, ["aaa"] + counters, ["zzz"] + counters,
            ["userChats/u3/c1/unreadx"] + counters, ["messages/c1/m3"] + replacedInside,
        ]
        for (round, relatives) in cases.enumerated() {
            let write = update("", relatives)
            expectSame(try recent.locations(of: write, keys: keys), try WriteLocations(of: write, keys: keys))
            #expect(recent.hits == round + 1, "\(relatives.prefix(1))")
        }
        // Neither its first path nor its last is a kept one's: afresh.
        let moved = update("", counters + ["messages/c1/m2"])
        expectSame(try recent.locations(of: moved, keys: keys), try WriteLocations(of: moved, keys: keys))
        #expect(recent.hits == cases.count)
        // A new path over or inside a kept one, or the same as one: refused as afresh.
        for clash in ["userChats/u3", "unreadTotals/u4/x", "unreadTotals/u5", ""] {
            let write = update("", [clash] + counters)
            #expect(throws: StoreError.self, "\(clash)") { try recent.locations(of: write, keys: keys) }
        }
        // More than a few new paths: afresh.
        let many = update("", ["n1", "n2", "n3", "n4", "n5"] + counters.dropFirst(5))
        let hits = recent.hits
        expectSame(try recent.locations(of: many, keys: keys), try WriteLocations(of: many, keys: keys))
        #expect(recent.hits == hits)
    }

    /// Two chats' fan-outs in turn, each message at a new key first and the shared totals last:
    /// both kept, told apart by their middle paths.
    @Test func fanoutsSharingTheirLastPathAreKeptApart() throws {
        let recent = RecentLocations()
        func fanout(_ chat: Int, _ message: Int) -> Write {
            let counters = (0..<20).map { "userChats/u\($0)/g\(chat)/unread" } + (0..<20).map { "unreadTotals/u\($0)" }
            return update("", ["messages/g\(chat)/m\(message)"] + counters)
        }
        for message in 0..<6 {
            let write = fanout(message % 2, message)
            expectSame(try recent.locations(of: write, keys: keys), try WriteLocations(of: write, keys: keys))
        }
        #expect(recent.hits == 4)
    }

    @Test func overlappingPathsAreRefusedEveryTime() throws {
        let recent = RecentLocations()
        let overlapping = update("", (0..<20).map { "a/\($0)" } + ["a/3/b"])
        for _ in 0..<2 {
            #expect(throws: StoreError.self) { try recent.locations(of: overlapping, keys: keys) }
        }
        #expect(recent.hits == 0)
    }
}
