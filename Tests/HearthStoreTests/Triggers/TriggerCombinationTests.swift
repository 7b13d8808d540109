import HearthCore
import Testing

@testable import HearthStore

/// A write and the updates its triggers derive go side by side into one multi-path update when
/// no location contains another, and through the overlay (which orders them) otherwise; both
/// must leave the same tree.
struct TriggerCombinationTests {
    static let keys = KeySpace(namespaceID: 1)

    static func combined(_ write: Write, _ derived: [DerivedUpdate]) -> TriggerRun.Combined? {
        let values: [Node?]
        switch write.operation {
        case .set(_, let value): values = [value.node]
        case .update(_, let entries): values = entries.map(\.value.node)
        }
        var taken = derived
        let combined = TriggerRun.side(by: write, values: values, derived: &taken, keys: keys)
        // Taken when combined, left as it was otherwise.
        #expect(combined == nil ? taken == derived : taken.isEmpty)
        return combined
    }

    @Test func disjointLocationsGoSideBySide() throws {
        let message = Write(.set(path("messages/c/m1"), try value(#"{"text":"hi"}"#)))
        let derived: [DerivedUpdate] = [
            .increment(path("userChats/u1/c/unread"), by: 1), .increment(path("unreadTotals/u1"), by: 1),
            .set(path("chats/c/lastMessage"), .leaf(.string("m1"), priority: nil)),
        ]
        let combined = try #require(Self.combined(message, derived))
        guard case .update(let base, let entries) = combined.write.operation else {
            Issue.record("expected an update")
            return
        }
        #expect(base == .root)
        #expect(entries.map(\.path) == [path("messages/c/m1")] + derived.map(\.path))
        #expect(entries.last?.value == derived.last?.value)
        #expect(combined.locations?.located.count == 4)
        #expect(combined.describe == nil)
    }

    @Test func overlappingLocationsGoThroughTheOverlay() throws {
        let message = Write(.set(path("messages/c/m1"), try value(#"{"text":"hi"}"#)))
        let counter = DerivedUpdate.increment(path("counts/c"), by: 1)
        // The same counter twice (two messages in one write), a derived update inside the
        // write, one above it, a priority of the write's, a write at the root.
        #expect(Self.combined(message, [counter, counter]) == nil)
        #expect(Self.combined(message, [.set(path("messages/c/m1/seen"), nil)]) == nil)
        #expect(Self.combined(message, [.set(path("messages/c"), nil)]) == nil)
        let priority = Write(.set(path("messages/c/m1/.priority"), try value("1")))
        #expect(Self.combined(priority, [counter]) == nil)
        #expect(Self.combined(Write(.set(.root, try value(#"{"a":1}"#))), [counter]) == nil)
    }

    @Test func bothWaysLeaveTheSameTree() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // One item: side by side. Two items of one list in one update: the same counter
        // twice, through the overlay.
        try await ns.set("lists/a/items/1", "true")
        _ = try await ns.update("lists/a/items", [("2", "true"), ("3", "true")])
        _ = try await ns.update("lists", [("a/items/4", "true"), ("b/items/1", "true")])
        #expect(try await ns.json("counts") == #"{"a":4,"b":1}"#)
    }
}
