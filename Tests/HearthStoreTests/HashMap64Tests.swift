import Testing

@testable import HearthStore

@Suite struct HashMap64Tests {
    /// Random inserts, updates, in-place changes and removals, each checked against a
    /// `Dictionary`: keys drawn from a small range so that many share a home slot (removals then
    /// move the keys probed past them back), the key 0 among them, through several growths.
    @Test func agreesWithADictionaryThroughInsertsRemovalsAndGrowth() {
        var map = HashMap64<[Int]>(capacity: 4)
        var reference: [UInt64: [Int]] = [:]
        var random = SeededRandom(state: 7)
        for step in 0..<40_000 {
            // Few distinct keys at first (crowded probes), more later (growth).
            let range: UInt64 = step < 20_000 ? 300 : 5_000
            let key = UInt64.random(in: 0..<range, using: &random) &* 0x1_0000_0001
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                map[key] = [step]
                reference[key] = [step]
            case 5..<7:
                map.modify(key) { $0.append(step) }
                reference[key]?.append(step)
            default:
                map[key] = nil
                reference[key] = nil
            }
            if step % 997 == 0 {
                #expect(map.count == reference.count)
                for probe in 0..<range {
                    let key = probe &* 0x1_0000_0001
                    #expect(map[key] == reference[key], "key \(key) at step \(step)")
                }
            }
        }
        #expect(map.count == reference.count)
        for (key, value) in reference { #expect(map[key] == value) }
    }

    @Test func removeAllEmptiesItAndItFillsAgain() {
        var map = HashMap64<String>()
        for key in UInt64(0)..<200 { map[key &* 31] = "v\(key)" }
        #expect(map.count == 200)
        map.removeAll()
        #expect(map.count == 0)
        for key in UInt64(0)..<200 { #expect(map[key &* 31] == nil) }
        map[0] = "zero"
        map[62] = "two"
        #expect(map.count == 2)
        #expect(map[0] == "zero")
        #expect(map[62] == "two")
        map.modify(5) { $0 = "never" }
        #expect(map[5] == nil)
    }

    /// The map holds its values in storage of its own: each value is released exactly once,
    /// whether replaced, removed, moved by a removal or a growth, cleared, or left in the map
    /// when it goes.
    @Test func everyValueIsReleasedOnceWhateverHappensToIt() {
        let alive = Counted.Alive()
        do {
            var map = HashMap64<Counted>(capacity: 4)
            for key in UInt64(0)..<300 { map[key &* 0x1_0000_0001] = Counted(alive) }
            #expect(alive.count == 300)
            for key in UInt64(0)..<100 { map[key &* 0x1_0000_0001] = Counted(alive) }
            #expect(alive.count == 300)
            for key in UInt64(100)..<200 { map[key &* 0x1_0000_0001] = nil }
            #expect(alive.count == 200)
            let kept = map.lend(5 &* 0x1_0000_0001) { $0.alive === alive }
            let removed = map.lend(150 &* 0x1_0000_0001) { _ in true }
            #expect(kept == true)
            #expect(removed == nil)
            map.removeAll()
            #expect(alive.count == 0)
            for key in UInt64(0)..<50 { map[key &* 31] = Counted(alive) }
            #expect(alive.count == 50)
        }
        #expect(alive.count == 0)
    }
}

/// A value that counts the instances alive.
private final class Counted {
    final class Alive: @unchecked Sendable {
        var count = 0
    }

    let alive: Alive

    init(_ alive: Alive) {
        self.alive = alive
        alive.count += 1
    }

    deinit { alive.count -= 1 }
}
