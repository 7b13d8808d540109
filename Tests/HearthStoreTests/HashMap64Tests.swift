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
        #expect(map.isEmpty)
        for key in UInt64(0)..<200 { #expect(map[key &* 31] == nil) }
        map[0] = "zero"
        map[62] = "two"
        #expect(map.count == 2)
        #expect(map[0] == "zero")
        #expect(map[62] == "two")
        map.modify(5) { $0 = "never" }
        #expect(map[5] == nil)
    }
}
