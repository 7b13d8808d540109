import Synchronization
import Testing

@testable import HearthCore

struct PushIDGeneratorTests {
    final class FakeClock: Sendable {
        let now = Mutex<UInt64>(1_700_000_000_000)
        func read() -> UInt64 { now.withLock { $0 } }
        func advance(_ ms: UInt64) { now.withLock { $0 += ms } }
    }

    @Test func shapeAndAlphabet() {
        let generator = PushIDGenerator()
        let alphabet = Set(PushIDGenerator.alphabet)
        for _ in 0..<100 {
            let id = generator.next()
            #expect(id.utf8.count == 20)
            #expect(id.utf8.allSatisfy(alphabet.contains))
            #expect(KeyValidator.isValid(id))
        }
    }

    @Test func strictlyIncreasingWithinOneMillisecond() {
        let clock = FakeClock()
        let generator = PushIDGenerator(clock: { clock.read() })
        let ids = (0..<5000).map { _ in generator.next() }
        for (a, b) in zip(ids, ids.dropFirst()) {
            #expect(a < b)
            #expect(ChildKey.compare(ChildKey(a), ChildKey(b)) < 0)
        }
        #expect(Set(ids.map { $0.prefix(8) }).count == 1)
    }

    @Test func orderedAcrossMilliseconds() {
        let clock = FakeClock()
        let generator = PushIDGenerator(clock: { clock.read() })
        var previous = generator.next()
        for step in [1, 1, 7, 1000, 86_400_000] as [UInt64] {
            clock.advance(step)
            let id = generator.next()
            #expect(previous < id)
            #expect(PushIDGenerator.timestamp(of: id) == clock.read())
            previous = id
        }
    }

    @Test func knownTimestampEncoding() {
        let generator = PushIDGenerator(clock: { 1_700_000_000_000 })
        let id = generator.next()
        #expect(id.prefix(8) == "-NjEtLV-")  // as the SDK's nextPushId encodes it
        #expect(PushIDGenerator.timestamp(of: id) == 1_700_000_000_000)
    }

    @Test func clockGoingBackwardsKeepsOrder() {
        let clock = FakeClock()
        let generator = PushIDGenerator(clock: { clock.read() })
        let first = generator.next()
        clock.now.withLock { $0 -= 5000 }
        #expect(first < generator.next())
    }

    @Test func concurrentUseGivesUniqueIDs() async {
        let generator = PushIDGenerator()
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { (0..<500).map { _ in generator.next() } } }
            var all: [String] = []
            for await chunk in group { all += chunk }
            return all
        }
        #expect(Set(ids).count == 4000)
    }

    /// Every millisecond draws a fresh random part: each of its 12 characters takes all 64
    /// values of the alphabet (2,000 draws miss one with odds of about 10^-14).
    @Test func randomPartUsesTheWholeAlphabetAtEveryPosition() {
        let clock = FakeClock()
        let generator = PushIDGenerator(clock: { clock.read() })
        var seen = [Set<UInt8>](repeating: [], count: 12)
        for _ in 0..<2000 {
            clock.advance(1)
            let id = Array(generator.next().utf8)
            for position in 0..<12 { seen[position].insert(id[8 + position]) }
        }
        for position in 0..<12 { #expect(seen[position].count == 64, "position \(position)") }
    }
}
