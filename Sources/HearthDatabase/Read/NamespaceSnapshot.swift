public import HearthCore
public import HearthStore

/// One namespace at one moment, as the server itself reads it (no rules): what a callable
/// reads, a server write's precondition judges, the chat app's checks compare. In a
/// precondition every read is noted, so that writes staged in the same round of the writer are
/// checked against what it read.
public struct NamespaceSnapshot {
    let reader: NamespaceReader
    let reads: ReadLog?

    /// A snapshot over a store's reader (the offline tools: `hearth chat check`, `doctor`).
    public init(reader: NamespaceReader) {
        self.init(reader: reader, reads: nil)
    }

    init(reader: NamespaceReader, reads: ReadLog?) {
        self.reader = reader
        self.reads = reads
    }

    /// The node at `path` (nil: none).
    public func node(at path: DataPath) -> Node? {
        reads?.note(path)
        return reader.node(at: path)
    }

    /// The children of `path` without their subtrees, in key order, at most `limit` of them
    /// (after `startAfter` when given: a page of a large node).
    public func shallow(at path: DataPath, startAfter: ChildKey? = nil, limit: Int? = nil) -> ShallowResult {
        reads?.note(path)
        return reader.shallow(at: path, startAfter: startAfter, limit: limit)
    }

    /// The last child of `path` in key order with its subtree, without reading the others.
    public func lastChild(at path: DataPath) -> (key: ChildKey, node: Node)? {
        reads?.note(path)
        return reader.lastChild(at: path)
    }

    /// Calls `body` with every queued job of `queue`, in key order, as of this snapshot.
    public func forEachJob(in queue: String, _ body: (StoredJob) throws -> Void) rethrows {
        try reader.forEachJob(in: queue, body)
    }

    /// The locations lookup index `index` finds under exactly `term`, at most `limit`
    /// (`LookupIndex`: server-side tables no client reaches).
    public func lookup(_ index: String, term: String, limit: Int = .max) -> [DataPath] {
        reader.lookup(index, term: term, limit: limit)
    }

    /// Calls `body` with the entries of lookup index `index` whose term starts with
    /// `termPrefix`, in order of term (by UTF-8 bytes) then location, starting after the entry
    /// at `after` (a `LookupMatch.position`), until `body` returns false or the entries end.
    /// - Returns: false when `after` is not a position under `termPrefix`.
    @discardableResult
    public func lookup(
        _ index: String,
        termPrefix: String,
        after: [UInt8]?,
        _ body: (LookupMatch) -> Bool
    ) -> Bool {
        reader.lookup(index, termPrefix: termPrefix, after: after, body)
    }
}
