import HearthCore

/// Shallow listings (the children of a node, without their subtrees) that write triggers read
/// on the namespace's writer, kept while nothing changes them: a chat's member list, read by
/// every message's trigger, costs one LevelDB iterator over all its members otherwise.
///
/// Kept exact the way `SubtreeShapes` keeps its shapes, and applied with them: every commit and
/// every staged write reports the data keys it wrote, and a listing is forgotten when one lands
/// at, above or below its node. At or above: the written key's hash is that of a listed node or
/// of one of its ancestors (`ancestors`, which only grows until everything is forgotten, so a
/// stale hash at worst forgets too much): then every listing is forgotten. Below: the written key
/// starts with a listed node's first segment (`heads`, a cheap test that most keys of a chat
/// message fail), and then one of its ancestors is the listed node. Any other commit (imports,
/// index builds, a failed write) forgets everything, with the shapes.
///
/// A listing is remembered only when it was read with nothing staged in the round (the
/// snapshot is then the state the next write applies to), and only up to `maxChildren`
/// children; at most `capacity` children in all. Touched only on the namespace's writer.
final class RememberedListings {
    /// Listings longer than this are not remembered.
    static let maxChildren = 4_096
    /// Children remembered in all at most (then all are forgotten and remembering starts again).
    static let capacity = 65_536

    private var listings: [UInt64: (dataKey: [UInt8], listing: ShallowResult)] = [:]
    /// Hashes of the listed nodes and of their ancestors (the namespace root included), looked
    /// up for every key a commit writes.
    private var ancestors = HashSet64(capacity: 16)
    /// The data keys of the listed nodes' first segments (namespace prefix included).
    private var heads: [[UInt8]] = []
    /// Children remembered since everything was last forgotten.
    private var children = 0

    var isEmpty: Bool { listings.isEmpty }

    /// The listing of the node at `dataKey` as it is now, or nil when not remembered.
    func listing(at dataKey: [UInt8]) -> ShallowResult? {
        guard !listings.isEmpty, let remembered = listings[SubtreeShapes.hash(dataKey)],
            KeyBytes.equal(remembered.dataKey, dataKey)
        else { return nil }
        return remembered.listing
    }

    /// Remembers `listing`, read from the current state, as that of the node at `dataKey` (not
    /// the namespace root, nor a listing of more than `maxChildren`).
    func remember(_ listing: ShallowResult, at dataKey: [UInt8]) {
        let count: Int
        if case .children(let listed) = listing { count = listed.count } else { count = 1 }
        guard count <= Self.maxChildren else { return }
        var head: Int?
        var found: [UInt64] = []
        // The first ancestor is the namespace root; the second ends the first segment.
        let hash = SubtreeShapes.forEachAncestor(of: dataKey) { ancestor, length in
            found.append(ancestor)
            if found.count == 2 { head = length }
        }
        guard let hash, !found.isEmpty else { return }
        let headLength = head ?? dataKey.count
        if children + count > Self.capacity { removeAll() }
        children += count
        listings[hash] = (dataKey, listing)
        ancestors.insert(hash)
        for ancestor in found { ancestors.insert(ancestor) }
        let headKey = Array(dataKey[0..<headLength])
        if !heads.contains(where: { KeyBytes.equal($0, headKey) }) { heads.append(headKey) }
    }

    /// Forgets every listing a write of `written` (with `hashes`, `SubtreeShapes.hash` of each)
    /// may have changed.
    func forget(touchedBy written: [[UInt8]], hashes: [UInt64]) {
        for (index, key) in written.enumerated() {
            if ancestors.contains(hashes[index]) {
                removeAll()
                return
            }
            guard heads.contains(where: { KeyBytes.hasPrefix(key, $0) }) else { continue }
            SubtreeShapes.forEachAncestor(of: key) { ancestor, length in
                guard let remembered = listings[ancestor], remembered.dataKey.count == length,
                    KeyBytes.hasPrefix(key, remembered.dataKey)
                else { return }
                listings[ancestor] = nil
            }
        }
    }

    func removeAll() {
        listings.removeAll(keepingCapacity: true)
        ancestors.removeAll()
        heads.removeAll(keepingCapacity: true)
        children = 0
    }
}
