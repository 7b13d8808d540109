import HearthCore

/// Where recent lists of derived updates land, kept by the namespace's writer: a trigger that
/// returns updates at the same paths as before (a chat's message trigger, for every message of
/// the chat: its members' counters and `lastMessageAt`) has their keys encoded, checked
/// disjoint, sorted and hashed once, not for every write. A pure memo of `LocatedEntries`
/// over the paths (the key space is the namespace's, fixed), so what it answers never depends
/// on the data.
final class DerivedLayouts {
    /// At most this many lists are kept, holding at most `capacityOfPaths` paths in all; a new
    /// one past either starts over (a kept path costs ~150 bytes).
    static let capacity = 32
    static let capacityOfPaths = 32_768
    /// Shorter lists are located directly (cheaper than comparing them with a kept one).
    static let minimumCount = 16

    /// One list's located entries at the root, in the byte order of their keys.
    struct Layout {
        let paths: [DataPath]
        let dataKeys: [[UInt8]]
        /// `paths`' indexes in the byte order of their keys.
        let order: [Int]
        let hashes: [UInt64]
    }

    /// A list's first path and its length: a trigger's lists that start alike but differ in
    /// length (a chat's newest message and an older one) are kept side by side.
    private struct ListKey: Hashable {
        let first: DataPath
        let count: Int
    }

    private var layouts: [ListKey: Layout] = [:]
    private var keptPaths = 0
    private(set) var hits = 0

    /// The layout of the paths of `updates`; nil when one of them is the root or a priority, or
    /// two of them overlap. A kept layout's paths were checked so when it was kept: a list
    /// found at them needs no check of its own.
    func layout(of updates: [DerivedUpdate], keys: KeySpace) -> Layout? {
        guard let firstPath = updates.first?.path else { return nil }
        let first = ListKey(first: firstPath, count: updates.count)
        if let kept = layouts[first], Self.same(kept.paths, updates) {
            hits += 1
            return kept
        }
        guard !updates.contains(where: { $0.path.isRoot || $0.path.isPriorityPath }) else { return nil }
        let paths = updates.map(\.path)
        let located = LocatedEntries(base: .root, relatives: paths, keys: keys)
        guard let order = try? located.checkDisjoint() else { return nil }
        let layout = Layout(
            paths: paths,
            dataKeys: located.dataKeys,
            order: order,
            hashes: SubtreeShapes.hashes(of: located.dataKeys, sharing: located.baseKey)
        )
        guard paths.count <= Self.capacityOfPaths else { return layout }
        if let replaced = layouts[first] { keptPaths -= replaced.paths.count }
        if layouts.count >= Self.capacity || keptPaths + paths.count > Self.capacityOfPaths {
            layouts.removeAll(keepingCapacity: true)
            keptPaths = 0
        }
        layouts[first] = layout
        keptPaths += paths.count
        return layout
    }

    /// True when `updates` are at `paths`, in order (as many of each).
    private static func same(_ paths: [DataPath], _ updates: [DerivedUpdate]) -> Bool {
        paths.withUnsafeBufferPointer { paths in
            updates.withUnsafeBufferPointer { updates in
                for index in 0..<paths.count where paths[index] != updates[index].path { return false }
                return true
            }
        }
    }
}

extension WriteLocations {
    /// The locations of `leading` entries (at the root; each located as `LocatedEntries`
    /// locates it) followed by a kept `layout`'s: its sorted order merged with theirs, each
    /// checked against its neighbours. Nil when a leading entry contains, or lies inside, one
    /// of the layout's (or another leading entry).
    init?(leading paths: [DataPath], then layout: DerivedLayouts.Layout, keys: KeySpace) {
        let leading = LocatedEntries(base: .root, relatives: paths, keys: keys)
        guard !leading.isPriority.contains(true), let leadingOrder = try? leading.checkDisjoint() else { return nil }
        let offset = paths.count
        let derivedKeys = layout.dataKeys
        let dataKeys = leading.dataKeys + derivedKeys
        guard let order = Self.merged(leadingOrder, into: layout.order.map { offset + $0 }, keys: dataKeys) else {
            return nil
        }
        self.init(
            located: LocatedEntries(
                base: .root,
                relatives: paths + layout.paths,
                dataKeys: dataKeys,
                isPriority: [Bool](repeating: false, count: offset + derivedKeys.count),
                baseKey: leading.baseKey
            ),
            order: order,
            hashes: SubtreeShapes.hashes(of: leading.dataKeys, sharing: leading.baseKey) + layout.hashes
        )
    }
}
