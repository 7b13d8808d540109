/// Splits stored keys below a base prefix into path segments, and tells how many leading
/// segments a key shares with the key before it (keys arrive in sorted order).
struct SegmentSplitter {
    let baseLength: Int
    /// End offsets (within the current key) of the current key's segments, the priority marker
    /// excluded.
    private(set) var ends: [Int] = []
    private(set) var isPriority = false
    private var previous: [UInt8] = []
    /// The ends of the segments parsed for the current key (the shared ones are taken as they were).
    private var tail: [Int] = []

    init(baseLength: Int) {
        self.baseLength = baseLength
        ends.reserveCapacity(8)
        tail.reserveCapacity(8)
    }

    /// Parses `key`; returns the number of leading segments shared with the previous key, or
    /// nil when the key is malformed (it is then skipped: the next key is compared with the one
    /// before it).
    ///
    /// The segments of the previous key that end within the bytes both keys start with are the
    /// same segments, so only the rest of the key is parsed.
    mutating func split(_ key: UnsafeRawBufferPointer) -> Int? {
        let common = previous.withUnsafeBytes { Self.commonPrefixLength($0, key, from: baseLength) }
        var shared = 0
        while shared < ends.count && ends[shared] <= common { shared += 1 }
        tail.removeAll(keepingCapacity: true)
        var priority = false
        var offset = shared == 0 ? baseLength : ends[shared - 1]
        while offset < key.count {
            if key[offset] == KeyEncoding.priorityMarker {
                guard offset + 1 == key.count else { return nil }
                priority = true
                break
            }
            guard let end = KeyEncoding.segmentEnd(key, from: offset) else { return nil }
            tail.append(end)
            offset = end
        }
        ends.removeSubrange(shared...)
        ends.append(contentsOf: tail)
        isPriority = priority
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: key)
        return shared
    }

    /// How many bytes `a` and `b` share from the start, given that the first `start` are the
    /// same (at least `start`); compared eight at a time.
    static func commonPrefixLength(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, from start: Int) -> Int {
        let limit = min(a.count, b.count)
        var index = start
        while index + 8 <= limit {
            let difference =
                a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // The first differing byte is the lowest in memory: the lowest set bits once the
            // loaded words are read as little-endian.
            if difference != 0 { return index + difference.littleEndian.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < limit && a[index] == b[index] { index += 1 }
        return max(index, start)
    }

    /// Start offset of segment `index` in the current key.
    @inline(__always)
    func start(_ index: Int) -> Int {
        index == 0 ? baseLength : ends[index - 1]
    }
}
