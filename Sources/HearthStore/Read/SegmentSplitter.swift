/// Splits stored keys below a base prefix into path segments, and tells how many leading
/// segments a key shares with the key before it (keys arrive in sorted order).
struct SegmentSplitter {
    let baseLength: Int
    /// End offsets (within the current key) of the current key's segments, the priority marker
    /// excluded.
    private(set) var ends: [Int] = []
    private(set) var isPriority = false
    private var previous: [UInt8] = []
    private var previousEnds: [Int] = []

    init(baseLength: Int) {
        self.baseLength = baseLength
        ends.reserveCapacity(8)
        previousEnds.reserveCapacity(8)
    }

    /// Parses `key`; returns the number of leading segments shared with the previous key, or
    /// nil when the key is malformed.
    mutating func split(_ key: UnsafeRawBufferPointer) -> Int? {
        swap(&ends, &previousEnds)
        ends.removeAll(keepingCapacity: true)
        isPriority = false
        var offset = baseLength
        while offset < key.count {
            if key[offset] == KeyEncoding.priorityMarker {
                guard offset + 1 == key.count else { return nil }
                isPriority = true
                break
            }
            guard let end = KeyEncoding.segmentEnd(key, from: offset) else { return nil }
            ends.append(end)
            offset = end
        }
        // Shared bytes with the previous key decide how many whole segments are shared.
        let limit = min(previous.count, key.count)
        var common = baseLength
        while common < limit && previous[common] == key[common] { common += 1 }
        var shared = 0
        while shared < ends.count && shared < previousEnds.count && ends[shared] <= common
            && previousEnds[shared] == ends[shared]
        {
            shared += 1
        }
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: key)
        return shared
    }

    /// Start offset of segment `index` in the current key.
    @inline(__always)
    func start(_ index: Int) -> Int {
        index == 0 ? baseLength : ends[index - 1]
    }
}
