/// A server-side lookup table derived from the tree: the terms each location matching
/// `pattern` is found by (a profile's phone number, the words of a display name). The store
/// keeps it in step with every write in the same batch as the write (imports included), so it
/// never disagrees with the data, and it lives outside the data tree: no client request, rule
/// or export reaches it; only server code reads it (`NamespaceSnapshot.lookup` in HearthDatabase).
///
/// Registered with `DatabaseTriggers.add(_:in:)` (HearthDatabase) before the database opens. At open, an index whose
/// stored definition (name and `version`) is missing or different is rebuilt from the tree,
/// and the entries of an index no longer registered are dropped: change `version` whenever
/// `terms(of:wildcards:)` or `payload(of:wildcards:)` changes what it returns.
public protocol LookupIndex: Sendable {
    /// The index's name in its namespace: 1 to 64 bytes, unique.
    var name: String { get }
    /// The locations indexed: keys and `$name` wildcards, e.g. `/users/$uid/phoneNumber`.
    var pattern: String { get }
    /// The version of `terms` and `payload`; a change rebuilds the index at the next open.
    var version: Int { get }
    /// The terms `value` (at `location`, whose pattern wildcards are `wildcards`) is found by;
    /// a pure function of its input. Terms are at most `LookupTerms.maxBytes` bytes of UTF-8;
    /// longer ones, empty ones and ones with a NUL character are not indexed.
    func terms(of value: Node, wildcards: [String: String]) -> [String]

    /// What every entry of `value`'s terms carries (`LookupMatch.payload`), so that a scan can
    /// judge a match without reading the location; at most `LookupTerms.maxPayloadBytes`
    /// (longer is cut). Empty by default. Covered by `version` like the terms.
    func payload(of value: Node, wildcards: [String: String]) -> [UInt8]
}

extension LookupIndex {
    public func payload(of value: Node, wildcards: [String: String]) -> [UInt8] { [] }
}

/// The limits of a lookup term.
public enum LookupTerms {
    /// The most bytes of UTF-8 in one term.
    public static let maxBytes = 256
    /// The most bytes an entry's payload keeps.
    public static let maxPayloadBytes = 1_024
}
