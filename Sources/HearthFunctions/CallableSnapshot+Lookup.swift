public import HearthCore

/// The namespace's lookup indexes (`LookupIndex`: server-side tables no client reaches), as a
/// callable reads them.
extension CallableSnapshot {
    /// The locations lookup index `index` finds under exactly `term`, at most `limit`.
    public func lookup(_ index: String, term: String, limit: Int = .max) -> [DataPath] {
        snapshot.lookup(index, term: term, limit: limit)
    }

    /// The entries of lookup index `index` whose term starts with `termPrefix`, in order, after
    /// the position `after`, until `body` returns false (see `NamespaceSnapshot.lookup`).
    /// - Returns: false when `after` is not a position under `termPrefix`.
    @discardableResult
    public func lookup(
        _ index: String,
        termPrefix: String,
        after: [UInt8]?,
        _ body: (LookupMatch) -> Bool
    ) -> Bool {
        snapshot.lookup(index, termPrefix: termPrefix, after: after, body)
    }
}
