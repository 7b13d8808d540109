import HearthCore
import Testing

@testable import HearthStore

/// `SegmentSplitter` parses only what a key does not share with the one before it; it must
/// give what parsing each key whole gives.
@Suite struct SegmentSplitterTests {
    static let keys = KeySpace(namespaceID: 7)

    static let base = keys.dataKey(DataPath(keys: [ChildKey("chats")]))

    /// The key of `chats/<segments>` (its priority's with `priority`).
    static func key(_ segments: [String], priority: Bool = false) -> [UInt8] {
        var key = keys.dataKey(DataPath(keys: ([ChildKey("chats")] + segments.map { ChildKey($0) })))
        if priority { key.append(KeyEncoding.priorityMarker) }
        return key
    }

    /// Each key's segment ends, parsed from the start.
    static func wholeEnds(_ key: [UInt8], from base: Int) -> [Int] {
        key.withUnsafeBytes { bytes in
            var ends: [Int] = []
            var offset = base
            while offset < bytes.count, bytes[offset] != KeyEncoding.priorityMarker {
                guard let end = KeyEncoding.segmentEnd(bytes, from: offset) else { return [] }
                ends.append(end)
                offset = end
            }
            return ends
        }
    }

    @Test func sharedSegmentsAndEndsMatchAWholeParseOfEachKey() {
        let base = Self.base
        let long = String(repeating: "x", count: 40)
        let sorted: [([String], Bool)] = [
            (["c1"], true),
            (["c1", "members", long + "a", "role"], false),
            (["c1", "members", long + "a", "since"], false),
            (["c1", "members", long + "b"], false),
            (["c1", "members", long + "b", "role"], false),
            (["c1", "name"], false),
            (["c1", "name"], true),
            (["c2", "\u{1F600}" + long, "1"], false),
            (["c2", "\u{1F600}" + long, "10"], false),
            (["c2", "\u{1F600}" + long + "z"], false),
            (["c3"], false),
        ]
        var splitter = SegmentSplitter(baseLength: base.count)
        var previousEnds: [Int] = []
        var previous: [UInt8] = []
        for (segments, priority) in sorted {
            let key = Self.key(segments, priority: priority)
            let ends = Self.wholeEnds(key, from: base.count)
            // Segments are shared when they end at the same place with the same bytes before it.
            let expectedShared = zip(ends, previousEnds).prefix { $0 == $1 && key[..<$0] == previous[..<$0] }.count
            let shared = key.withUnsafeBytes { splitter.split($0) }
            #expect(shared == expectedShared, "\(segments)")
            #expect(splitter.ends == ends, "\(segments)")
            #expect(splitter.isPriority == priority, "\(segments)")
            previousEnds = ends
            previous = key
        }
    }

    /// A malformed key is refused and skipped: the next is compared with the key before it.
    @Test func aMalformedKeyIsSkipped() {
        let base = Self.base
        var splitter = SegmentSplitter(baseLength: base.count)
        let first = Self.key(["c1", "a"])
        #expect(first.withUnsafeBytes { splitter.split($0) } == 0)
        var malformed = Self.key(["c1"])
        malformed.append(0xFF)
        #expect(malformed.withUnsafeBytes { splitter.split($0) } == nil)
        let next = Self.key(["c1", "b"])
        #expect(next.withUnsafeBytes { splitter.split($0) } == 1)
        #expect(splitter.ends == Self.wholeEnds(next, from: base.count))
    }

    @Test func commonPrefixLengthFindsTheFirstDifferenceAtAnyOffset() {
        let a = [UInt8](0..<40)
        for difference in 0...40 {
            var b = a
            if difference < 40 { b[difference] = 99 }
            for start in [0, 3, min(difference, 17)] where start <= difference {
                let found = a.withUnsafeBytes { pa in
                    b.withUnsafeBytes { SegmentSplitter.commonPrefixLength(pa, $0, from: start) }
                }
                #expect(found == difference, "difference at \(difference), from \(start)")
            }
            let shorter = Array(a[0..<difference])
            let found = a.withUnsafeBytes { pa in
                shorter.withUnsafeBytes { SegmentSplitter.commonPrefixLength(pa, $0, from: 0) }
            }
            #expect(found == difference)
        }
    }
}
