import Glibc

/// What the writer remembers of which indexed lists keep entries (their markers,
/// `KeySpace.keptListKey`), so that a write refreshing a list's children reads its marker once
/// rather than with every write. Used on the writer's thread only (`WriterState`).
///
/// It only ever holds what the committed state says: a marker read from the snapshot a write is
/// planned against, or one a build job wrote. A batch that may add or remove markers (a write at
/// or above an indexed location, a build, a failed write) makes it forget everything once
/// applied, so no staged or failed batch leaves an answer behind.
///
/// Lists are found by a hash of their segments' bytes, made from the data key the write already
/// has (no key is built for a list it knows), and told apart by the whole marker.
final class KeptLists {
    /// Lists remembered at most; past it the memory starts over (about 100 bytes each).
    static let capacity = 65_536

    private struct Known {
        let marker: [UInt8]
        let kept: Bool
    }

    private var known = HashMap64<Known>(capacity: 256)

    /// Whether the list of index `indexID` whose key segments are `key[segments]` keeps
    /// entries: remembered, else `read(marker)` (the snapshot's answer for its marker key,
    /// `makeMarker()`), then remembered.
    func keepsEntries(
        indexID: UInt32,
        key: [UInt8],
        segments: Range<Int>,
        makeMarker: () -> [UInt8],
        read: ([UInt8]) -> Bool
    ) -> Bool {
        let hash = Self.hash(indexID, key, segments)
        if let kept = known.lend(hash, { Self.names($0.marker, key, segments) ? $0.kept : nil }) ?? nil {
            return kept
        }
        let marker = makeMarker()
        let kept = read(marker)
        remember(hash, Known(marker: marker, kept: kept))
        return kept
    }

    /// Remembers that the list of index `indexID` with marker key `marker` (whose last
    /// `segmentCount` bytes are the list's segments) keeps entries: a build wrote them.
    func learnKept(_ marker: [UInt8], indexID: UInt32, segmentCount: Int) {
        let segments = (marker.count - segmentCount)..<marker.count
        remember(Self.hash(indexID, marker, segments), Known(marker: marker, kept: true))
    }

    /// Forgets every list.
    func forget() {
        known.removeAll()
    }

    private func remember(_ hash: UInt64, _ entry: Known) {
        if known.count >= Self.capacity { known.removeAll() }
        known[hash] = entry
    }

    /// A hash of the index id and the list's segments, eight bytes at a time (memory only: it
    /// never needs to match anything stored or made by another process).
    private static func hash(_ indexID: UInt32, _ key: [UInt8], _ segments: Range<Int>) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = (UInt64(indexID) ^ 0xcbf2_9ce4_8422_2325) &* multiplier
        key.withUnsafeBytes { bytes in
            var offset = segments.lowerBound
            while offset + 8 <= segments.upperBound {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                hash = (hash ^ word) &* multiplier
                hash ^= hash >> 29
                offset += 8
            }
            var tail: UInt64 = 0
            while offset < segments.upperBound {
                tail = tail << 8 | UInt64(bytes[offset])
                offset += 1
            }
            hash = (hash ^ tail ^ UInt64(segments.count) << 56) &* multiplier
            hash ^= hash >> 32
        }
        return hash
    }

    /// True when `marker` ends with exactly the list's segments `key[segments]` (the hash of
    /// the index id and the segments matched; the prefix before them is the namespace's and
    /// the index's).
    private static func names(_ marker: [UInt8], _ key: [UInt8], _ segments: Range<Int>) -> Bool {
        let start = marker.count - segments.count
        guard start >= 0 else { return false }
        guard !segments.isEmpty else { return true }
        return marker.withUnsafeBytes { marker in
            key.withUnsafeBytes { key in
                memcmp(marker.baseAddress! + start, key.baseAddress! + segments.lowerBound, segments.count) == 0
            }
        }
    }
}
