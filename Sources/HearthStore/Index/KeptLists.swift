/// What the writer remembers of which indexed lists keep entries (their markers,
/// `KeySpace.keptListKey`), so that a write refreshing a list's children reads its marker once
/// rather than with every write. Used on the writer's thread only (`WriterState`).
///
/// It only ever holds what the committed state says: a marker read from the snapshot a write is
/// planned against, or one a build job wrote. A write that may add or remove markers (one at or
/// above an indexed location) makes it forget everything when it is planned and again when its
/// batch is applied, so no staged or failed batch leaves an answer behind.
final class KeptLists {
    /// Lists remembered at most; past it the memory starts over (about 100 bytes each).
    static let capacity = 65_536

    private var known: [[UInt8]: Bool] = [:]

    /// Whether the list with marker key `marker` keeps entries: remembered, else `read()`
    /// (the snapshot's answer), then remembered.
    func keepsEntries(_ marker: [UInt8], read: () -> Bool) -> Bool {
        if let kept = known[marker] { return kept }
        let kept = read()
        if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
        known[marker] = kept
        return kept
    }

    /// Remembers that the list with marker key `marker` keeps entries (a build wrote them).
    func learnKept(_ marker: [UInt8]) {
        if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
        known[marker] = true
    }

    /// Forgets every list.
    func forget() {
        known.removeAll(keepingCapacity: true)
    }
}
