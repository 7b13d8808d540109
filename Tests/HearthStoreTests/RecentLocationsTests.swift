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
        // Another base, one path changed, one path fewer: afresh, and right.
        for other in [
            update("x", relatives), update("", relatives.dropLast() + ["zzz"]), update("", Array(relatives.dropLast())),
        ] {
            expectSame(try recent.locations(of: other, keys: keys), try WriteLocations(of: other, keys: keys))
        }
        #expect(recent.hits == 1)
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
