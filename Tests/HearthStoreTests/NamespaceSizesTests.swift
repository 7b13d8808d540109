import HearthCore
import HearthTestSupport
import Testing

@testable import HearthStore

@Suite struct NamespaceSizesTests {
    @Test func eachNamespaceIsMeasuredByItsOwnKeys() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let big = try temp.store.namespace("big")
        let small = try temp.store.namespace("small")
        // Hex of a pseudo-random sequence: LevelDB's compression halves it at most.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func text() -> String {
            (0..<64).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return String(state >> 32, radix: 16)
            }.joined()
        }
        for batch in 0..<40 {
            let entries = (0..<100).map { ("n\(batch)-\($0)", #""\#(text())""#) }
            _ = try await big.update("items", entries)
        }
        try await small.set("one", "1")
        // Once LevelDB wrote its table files (the memtable is not counted).
        temp.store.db.compactInBackground([[KeySpace.dataTable]])
        let sizes = try await eventually(timeout: .seconds(30)) {
            try temp.store.approximateNamespaceSizes()
        } until: {
            ($0["big"] ?? 0) > 500_000
        }
        #expect((sizes["big"] ?? 0) > 500_000, "\(sizes)")
        #expect((sizes["small"] ?? 0) < 100_000, "\(sizes)")
        #expect(Set(sizes.keys) == ["big", "small"])
    }
}
