import HearthCore
import Testing

@testable import HearthStore

/// `WriteOverlay`: what a location holds after a write and the updates laid over it.
@Suite(.timeLimit(.minutes(3))) struct WriteOverlayTests {
    static func leaf(_ n: Double) -> Node { .leaf(.number(n), priority: nil) }

    @Test func laidUpdatesMergeReplaceAndLeaveCopiesAlone() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("a", #"{"x":1,"y":{"z":2}}"#)
        var seen = try await ns.read { reader -> [String] in
            let write = Write(.update(path("a"), [UpdateEntry(path: path("y/z"), value: try value("3"))]))
            var overlay = WriteOverlay(write, values: [Self.leaf(3)], reader: reader)
            let client = overlay
            var seen: [String] = []
            func show(_ o: WriteOverlay, _ p: String) -> String { o.value(at: path(p)).map { "\($0)" } ?? "nil" }
            // Leaf values: read from the store, from the write, and an object (none).
            seen.append(
                [
                    overlay.leafValue(at: path("a/x")), overlay.leafValue(at: path("a/y/z")),
                    overlay.leafValue(at: path("a")),
                ]
                .map { $0.map { "\($0)" } ?? "nil" }.joined(separator: " ")
            )
            // Below an entry, above it, untouched.
            seen.append(show(overlay, "a/y/z"))
            seen.append(show(overlay, "a"))
            // Laid below an entry: merged into it.
            overlay.replace(path("a/y/z/w"), with: Self.leaf(4))
            seen.append(show(overlay, "a/y/z"))
            // Laid beside: a new entry; then above both: they go.
            overlay.replace(path("a/q"), with: Self.leaf(5))
            seen.append(show(overlay, "a/q"))
            overlay.replace(path("a"), with: Self.leaf(6))
            seen.append("\(overlay.entries.count) \(show(overlay, "a")) \(show(overlay, "a/q"))")
            // The copy taken before still holds the write alone.
            seen.append(show(client, "a/y/z"))
            seen.append(show(client, "a/q"))
            return seen
        }
        #expect(seen.removeFirst() == "\(Self.leaf(1)) \(Self.leaf(3)) nil")
        #expect(seen[0] == "\(Self.leaf(3))")
        #expect(seen[1] == "\(try value(#"{"x":1,"y":{"z":3}}"#).node!)")
        #expect(seen[2] == "\(try value(#"{"w":4}"#).node!)")
        #expect(seen[3] == "\(Self.leaf(5))")
        #expect(seen[4] == "1 \(Self.leaf(6)) nil")
        #expect(seen[5] == "\(Self.leaf(3))")
        #expect(seen[6] == "nil")
    }
}
