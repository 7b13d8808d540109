import HearthCore
import Synchronization

/// Where recent large updates landed, kept by their paths: a client that writes the same
/// locations again and again with new values (a chat client's fan-out of a message to its
/// members' counters) has their keys encoded, checked disjoint, sorted and hashed once. A pure
/// memo of `WriteLocations(of:keys:)` (the namespace's key space is fixed), shared by the
/// request threads that work locations out before the writer.
final class RecentLocations: Sendable {
    /// Updates kept at most (a new one past it starts over).
    static let capacity = 16
    /// Larger updates are not kept (each kept one holds its keys).
    static let maximumLocations = 1_024

    private struct Kept {
        let base: DataPath
        let relatives: [DataPath]
        let locations: WriteLocations
    }

    private let kept = Mutex<[DataPath: Kept]>([:])
    private let hitCount = Atomic<Int>(0)

    /// Lookups answered from a kept update (tests).
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// `WriteLocations(of: write, keys: keys)`, from a kept update at the same paths when there
    /// is one.
    /// - Throws: as `WriteLocations(of:keys:)`.
    func locations(of write: Write, keys: KeySpace) throws -> WriteLocations {
        guard case .update(let base, let entries) = write.operation, let first = entries.first?.path,
            entries.count <= Self.maximumLocations
        else { return try WriteLocations(of: write, keys: keys) }
        if let candidate = kept.withLock({ $0[first] }), candidate.base == base,
            Self.same(candidate.relatives, entries)
        {
            hitCount.add(1, ordering: .relaxed)
            return candidate.locations
        }
        let locations = try WriteLocations(of: write, keys: keys)
        let made = Kept(base: base, relatives: locations.located.relatives, locations: locations)
        kept.withLock { kept in
            if kept.count >= Self.capacity { kept.removeAll(keepingCapacity: true) }
            kept[first] = made
        }
        return locations
    }

    /// True when `entries` are at `relatives`, in order (as many of each).
    private static func same(_ relatives: [DataPath], _ entries: [UpdateEntry]) -> Bool {
        guard relatives.count == entries.count else { return false }
        return relatives.withUnsafeBufferPointer { relatives in
            entries.withUnsafeBufferPointer { entries in
                for index in 0..<relatives.count where relatives[index] != entries[index].path { return false }
                return true
            }
        }
    }
}
