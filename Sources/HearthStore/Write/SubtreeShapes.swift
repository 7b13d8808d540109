import HearthCore

/// The LevelDB keys of small subtrees this writer set recently, so that replacing one again
/// deletes its old keys without an iterator.
///
/// Why: replacing a subtree must find its old keys, and a LevelDB iterator cannot be bounded
/// above: the step past the subtree's last key walks every unflushed version of every deleted
/// key after it until the next live one. A hot object beside deleted hot siblings (a presence
/// node, a counter, a fan-out benchmark's publisher keys) made each write walk tens of thousands
/// of dead versions. The writer knows what it last wrote at a path, as long as nothing else
/// touched that subtree since.
///
/// A few direct-mapped slots keyed by the node's data key (cheap enough for writes that never
/// come back to a path). Kept exact by invalidation: every commit through
/// `NamespaceWriter.commit` reports the data keys it wrote, and a slot is cleared when a write
/// lands at, above or below its node (one key a byte prefix of the other: the path encoding is
/// prefix-free); any other commit (imports, index builds) clears them all. Touched only on the
/// namespace's writer.
final class SubtreeShapes {
    /// What one commit wrote: the data keys of its locations (priority writes by their owner)
    /// and, for small sets, the keys now under each.
    struct Change {
        var written: [[UInt8]] = []
        var recorded: [(dataKey: [UInt8], keys: [[UInt8]])] = []
    }

    /// Subtrees with more keys than this are not remembered.
    static let maxKeys = 32
    static let slotCount = 32

    /// What the write being planned will change, applied by `NamespaceWriter.commit` if it
    /// commits (reset when the next plan starts).
    var staged = Change()

    private var slotKeys: [[UInt8]?] = Array(repeating: nil, count: SubtreeShapes.slotCount)
    private var slotShapes: [[[UInt8]]] = Array(repeating: [], count: SubtreeShapes.slotCount)
    private var occupied = 0

    var count: Int { occupied }

    /// The keys under the node at `dataKey` as the writer last wrote them, or nil when unknown.
    func keys(at dataKey: [UInt8]) -> [[UInt8]]? {
        guard occupied > 0 else { return nil }
        let slot = Self.slot(dataKey)
        guard let key = slotKeys[slot], key == dataKey else { return nil }
        return slotShapes[slot]
    }

    /// Applies a commit: clears every slot it may have changed, then remembers the new shapes.
    func apply(_ change: Change) {
        if occupied > 0 {
            for written in change.written {
                for slot in 0..<Self.slotCount {
                    guard let key = slotKeys[slot], Self.related(key, written) else { continue }
                    clear(slot)
                }
            }
        }
        for (dataKey, keys) in change.recorded {
            let slot = Self.slot(dataKey)
            if slotKeys[slot] == nil { occupied += 1 }
            slotKeys[slot] = dataKey
            slotShapes[slot] = keys
        }
    }

    func removeAll() {
        guard occupied > 0 else { return }
        for slot in 0..<Self.slotCount { clear(slot) }
    }

    private func clear(_ slot: Int) {
        guard slotKeys[slot] != nil else { return }
        slotKeys[slot] = nil
        slotShapes[slot] = []
        occupied -= 1
    }

    /// True when one key is a prefix of the other (one node contains the other).
    private static func related(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let n = min(a.count, b.count)
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                var i = n - 1
                // Keys of one namespace share their first bytes: compare from the end.
                while i >= 0 {
                    if pa[i] != pb[i] { return false }
                    i -= 1
                }
                return true
            }
        }
    }

    /// FNV-1a of the key's last bytes (its first bytes are the namespace's prefix).
    private static func slot(_ key: [UInt8]) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in key.suffix(24) {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return Int(hash % UInt32(slotCount))
    }
}
