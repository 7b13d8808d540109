import HearthCore

/// The keys that say which indexed lists keep index entries (docs/decisions/0024): a list
/// with a marker has one entry per child, equal to the data; a list without one has none, and
/// a query orders its children as it reads them.
///
/// - `K` + nsId + indexId + the list's key segments → empty: the list's marker, written in the
///   same batch as its entries (or after the last of them, when they take several).
/// - `K` + nsId + `layoutMarkerID`: the namespace's index entries follow this layout: put by
///   every batch that puts index entries or markers (the first of a build's batches included),
///   and once the migration from the layout where every list kept entries is done. A namespace
///   without it and without entries has nothing to migrate.
extension KeySpace {
    static let keptListTable = UInt8(ascii: "K")

    /// The id no index gets, which names the layout marker instead.
    static let layoutMarkerID = UInt32.max

    /// Every marker of index `indexID`.
    func keptListPrefix(_ indexID: UInt32) -> [UInt8] {
        var out = KeySpace.prefix(KeySpace.keptListTable, namespaceID)
        KeySpace.appendBigEndian(indexID, to: &out)
        return out
    }

    /// The marker of the list whose key segments (as they follow the namespace's data prefix in
    /// a data key) are `segments`.
    func keptListKey<Segments: Collection<UInt8>>(_ indexID: UInt32, segments: Segments) -> [UInt8] {
        var out = keptListPrefix(indexID)
        out.append(contentsOf: segments)
        return out
    }

    /// The marker of `list` in index `indexID`.
    func keptListKey(_ indexID: UInt32, list: DataPath) -> [UInt8] {
        var out = keptListPrefix(indexID)
        KeyEncoding.append(list, to: &out)
        return out
    }

    /// The key whose presence says the namespace's index entries follow the kept-list layout.
    var indexLayoutKey: [UInt8] { keptListPrefix(KeySpace.layoutMarkerID) }
}
