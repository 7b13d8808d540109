import HearthCore

/// What the namespace's writer read from the snapshot and keeps while nothing changes it:
/// - shallow listings (the children of a node, without their subtrees) that write triggers
///   read: a chat's member list, read by every message's trigger, costs one LevelDB iterator
///   over all its members otherwise;
/// - what rules checks on the writer read at single locations (`RuleReadMemory`): a chat
///   message's sender's membership and block entry, one iterator each otherwise.
///
/// Kept exact the way `SubtreeShapes` keeps its shapes, and applied with them: every commit and
/// every staged write reports the data keys it wrote, and what is remembered of a node is
/// forgotten when one lands at, above or below it. At or above: the written key's hash is that
/// of a remembered node or of one of its ancestors (`ancestors`, which only grows until
/// everything is forgotten, so a stale hash at worst forgets too much): then everything is
/// forgotten. Below: the written key starts with a remembered node's first segment (`heads`, a
/// cheap test that most keys of a chat message fail), and then one of its ancestors is the
/// remembered node. Any other commit (imports, index builds, a failed write) forgets
/// everything, with the shapes.
///
/// A read is remembered only when it was made with nothing staged in the round (the snapshot
/// is then the state the next write applies to); listings only up to `maxChildren` children,
/// at most `capacity` children in all, and at most `summaryCapacity` summaries. Touched only on
/// the namespace's writer.
final class RememberedReads {
    /// Listings longer than this are not remembered.
    static let maxChildren = 4_096
    /// Children remembered in all at most (then all are forgotten and remembering starts again).
    static let capacity = 65_536

    /// Rule reads remembered at most (then every remembered read is forgotten).
    static let summaryCapacity = 16_384
    /// A leaf's string longer than this (UTF-8 bytes) is not remembered.
    static let maxRememberedString = 256

    private var listings = HashMap64<(dataKey: [UInt8], value: ShallowResult)>()
    /// What rules read at single locations (`NamespaceReader.summary(at:)` on the writer).
    private var summaries = HashMap64<(dataKey: [UInt8], value: StoredSummary)>(capacity: 256)
    /// Hashes of the remembered nodes and of their ancestors (the namespace root included), looked
    /// up for every key a commit writes.
    private var ancestors = HashSet64(capacity: 16)
    /// The data keys of the remembered nodes' first segments (namespace prefix included).
    private var heads: [[UInt8]] = []
    /// Children remembered since everything was last forgotten.
    private var children = 0

    var isEmpty: Bool { listings.isEmpty && summaries.isEmpty }

    /// The listing of the node at `dataKey` as it is now, or nil when not remembered.
    func listing(at dataKey: [UInt8]) -> ShallowResult? {
        guard !listings.isEmpty else { return nil }
        return listings.lend(SubtreeShapes.hash(dataKey)) { KeyBytes.equal($0.dataKey, dataKey) ? $0.value : nil }
            ?? nil
    }

    /// Remembers `listing`, read from the current state, as that of the node at `dataKey` (not
    /// the namespace root, nor a listing of more than `maxChildren`).
    func remember(_ listing: ShallowResult, at dataKey: [UInt8]) {
        let count: Int
        if case .children(let listed) = listing { count = listed.count } else { count = 1 }
        guard count <= Self.maxChildren else { return }
        if children + count > Self.capacity { removeAll() }
        guard let hash = note(dataKey) else { return }
        children += count
        listings[hash] = (dataKey, listing)
    }

    /// What is at the node at `dataKey` (its `hash`, `SubtreeShapes.hash`) as it is now, or nil
    /// when not remembered.
    func summary(at dataKey: [UInt8], hash: UInt64) -> StoredSummary? {
        guard !summaries.isEmpty else { return nil }
        return summaries.lend(hash) { KeyBytes.equal($0.dataKey, dataKey) ? $0.value : nil } ?? nil
    }

    /// Remembers `summary`, read from the current state, as what is at the node at `dataKey`
    /// (not the namespace root; a string leaf only up to `maxRememberedString` bytes).
    func remember(_ summary: StoredSummary, at dataKey: [UInt8]) {
        if case .leaf(.string(let string)) = summary, string.utf8.count > Self.maxRememberedString { return }
        if summaries.count >= Self.summaryCapacity { removeAll() }
        guard let hash = note(dataKey) else { return }
        summaries[hash] = (dataKey, summary)
    }

    /// Notes the node at `dataKey` and its ancestors as remembered (`ancestors`, `heads`);
    /// returns its hash, nil for the namespace root or a key that does not parse.
    private func note(_ dataKey: [UInt8]) -> UInt64? {
        var head: Int?
        var found = 0
        // The first ancestor is the namespace root; the second ends the first segment.
        let hash = SubtreeShapes.forEachAncestor(of: dataKey) { ancestor, length in
            found += 1
            if found == 2 { head = length }
            ancestors.insert(ancestor)
        }
        guard let hash, found > 0 else { return nil }
        ancestors.insert(hash)
        let headKey = Array(dataKey[0..<(head ?? dataKey.count)])
        if !heads.contains(where: { KeyBytes.equal($0, headKey) }) { heads.append(headKey) }
        return hash
    }

    /// Forgets everything a write of `written` (with `hashes`, `SubtreeShapes.hash` of each)
    /// may have changed.
    func forget(touchedBy written: [[UInt8]], hashes: [UInt64]) {
        for (index, key) in written.enumerated() {
            if ancestors.contains(hashes[index]) {
                removeAll()
                return
            }
            guard heads.contains(where: { KeyBytes.hasPrefix(key, $0) }) else { continue }
            SubtreeShapes.forEachAncestor(of: key) { ancestor, length in
                Self.drop(ancestor, length, above: key, from: &listings)
                Self.drop(ancestor, length, above: key, from: &summaries)
            }
        }
    }

    /// Drops what `remembered` holds of the node with hash `ancestor` and a data key of
    /// `length` bytes, when that node is an ancestor of the written `key`.
    private static func drop<Value>(
        _ ancestor: UInt64,
        _ length: Int,
        above key: [UInt8],
        from remembered: inout HashMap64<(dataKey: [UInt8], value: Value)>
    ) {
        let above =
            remembered.lend(ancestor) { $0.dataKey.count == length && KeyBytes.hasPrefix(key, $0.dataKey) } ?? false
        guard above else { return }
        remembered[ancestor] = nil
    }

    func removeAll() {
        listings.removeAll()
        summaries.removeAll()
        ancestors.removeAll()
        heads.removeAll(keepingCapacity: true)
        children = 0
    }
}
