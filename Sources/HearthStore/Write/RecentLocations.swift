import HearthCore
import Synchronization

/// Where recent large updates landed, kept by their paths: a client that writes the same
/// locations again and again with new values, and a few new ones (a chat client's fan-out of
/// each message, at a new key, to its members' counters), has the kept keys, their order and
/// hashes reused, and only the new paths encoded and merged into that order. A pure memo of
/// `WriteLocations(of:keys:)` (the namespace's key space is fixed), shared by the request
/// threads that work locations out before the writer.
final class RecentLocations: Sendable {
    /// Updates kept at most (a new one past it starts over).
    static let capacity = 16
    /// Larger updates are not kept (each kept one holds its keys).
    static let maximumLocations = 1_024
    /// An update whose paths differ from a kept one's in more places is located afresh.
    static let maximumReplaced = 4

    private struct Kept {
        let base: DataPath
        let locations: WriteLocations
    }

    /// Each kept update under its first, middle and last paths (a new location is usually the
    /// first or the last; the middle tells apart updates that share those, such as the
    /// fan-outs of two chats whose members' totals come last).
    private let kept = Mutex<[DataPath: Kept]>([:])
    private let hitCount = Atomic<Int>(0)

    /// Lookups answered from a kept update (tests).
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// `WriteLocations(of: write, keys: keys)`, from a kept update at (almost) the same paths
    /// when there is one.
    /// - Throws: as `WriteLocations(of:keys:)`.
    func locations(of write: Write, keys: KeySpace) throws -> WriteLocations {
        guard case .update(let base, let entries) = write.operation, !entries.isEmpty,
            entries.count <= Self.maximumLocations
        else { return try WriteLocations(of: write, keys: keys) }
        let probes = [entries[entries.count / 2].path, entries[entries.count - 1].path, entries[0].path]
        let candidates = kept.withLock { kept in probes.map { kept[$0] } }
        for case let candidate? in candidates where candidate.base == base {
            guard let replaced = Self.differences(candidate.locations.located.relatives, entries) else { continue }
            if replaced.isEmpty {
                hitCount.add(1, ordering: .relaxed)
                return candidate.locations
            }
            if let locations = WriteLocations(
                replacing: replaced,
                with: replaced.map { entries[$0].path },
                in: candidate.locations,
                keys: keys
            ) {
                hitCount.add(1, ordering: .relaxed)
                return locations
            }
        }
        let locations = try WriteLocations(of: write, keys: keys)
        guard !locations.located.isPriority.contains(true) else { return locations }
        let made = Kept(base: base, locations: locations)
        kept.withLock { kept in
            if kept.count + probes.count > Self.capacity * 3 { kept.removeAll(keepingCapacity: true) }
            for probe in probes { kept[probe] = made }
        }
        return locations
    }

    /// The indexes where `entries` are not at `relatives` (as many of each), in increasing
    /// order; nil when they are not as many, or differ in more than `maximumReplaced` places.
    private static func differences(_ relatives: [DataPath], _ entries: [UpdateEntry]) -> [Int]? {
        guard relatives.count == entries.count else { return nil }
        return relatives.withUnsafeBufferPointer { relatives in
            entries.withUnsafeBufferPointer { entries in
                var replaced: [Int] = []
                for index in 0..<relatives.count where relatives[index] != entries[index].path {
                    if replaced.count == maximumReplaced { return nil }
                    replaced.append(index)
                }
                return replaced
            }
        }
    }
}
