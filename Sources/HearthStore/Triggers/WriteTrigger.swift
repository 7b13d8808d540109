public import HearthCore

/// Derives further writes from a write, committed in the same LevelDB batch: one sequence
/// number, indexes kept, listeners told of everything as one commit, nothing of it visible
/// without the rest (before or after a crash).
///
/// For each write that changes a location matching `pattern` (a set, a multi-path update, a
/// transaction, an onDisconnect write; a delete or a set above the location, a write below it),
/// the namespace's writer calls `updates(for:)` once per matching location, with the value
/// there before and after the write. What it returns is applied after the write, in order
/// (a later update wins where two overlap; increments count from what the write and the
/// earlier updates left). The returned updates do not run triggers again, and the client's
/// rules judged only the client's part.
///
/// A trigger is a pure function of its input: the writer may call it again for the same write
/// (after applying the writes staged in its round). It runs on the namespace's writer: keep it
/// quick, never block. Throwing refuses the whole write; nothing is written. Throw
/// `WriteRefusal` to tell the client why (`StoreError` `.invalidWrite`, REST 400); any other
/// error is the server's failure (`.triggerFailed`: the client is told only that, the log the
/// error).
public protocol WriteTrigger: Sendable {
    /// The locations watched: a path whose `$name` segments match any key, e.g.
    /// `/lists/$list/items/$item`.
    var pattern: String { get }

    /// The updates to commit with a write that changed one matching location.
    func updates(for change: TriggerChange) throws -> [DerivedUpdate]
}

/// What a trigger is given: one matching location a write changed.
public struct TriggerChange {
    /// The namespace written.
    public let namespace: String
    /// The matching location.
    public let path: DataPath
    /// The keys the pattern's `$name` segments matched, by name without the `$`.
    public let wildcards: [String: String]
    /// The value at `path` before the write (nil: none).
    public let before: Node?
    /// The value at `path` after the client's write (nil: deleted).
    public let after: Node?
    /// Who made the write.
    public let author: WriteAuthor
    /// The server time of the write (milliseconds since 1970), as its timestamps resolve.
    public let now: Double
    /// The namespace as it was before the write, for reading anything else.
    public let snapshot: TriggerSnapshot
    /// The namespace as the client's write leaves it (without what triggers derive): what a
    /// trigger needs when one write changes several matching locations, whatever the order
    /// it is called in.
    public let written: TriggerWrittenState
    /// Where queued jobs are collected for the write's commit.
    let jobs: TriggerJobs

    /// Queues `job` in the write's commit: it is stored exactly when the write commits
    /// (`ServerJob`). A trigger called again for the same write queues again; only the last
    /// run's jobs commit.
    public func queue(_ job: ServerJob) {
        jobs.queue(job)
    }
}

/// Read access to the state a write was planned against. The writer notes what it reads, so
/// a write whose trigger read something another write of the same round changed is planned
/// again after that write.
public struct TriggerSnapshot {
    let reader: NamespaceReader
    let reads: TriggerReads
    /// The writer's remembered subtrees: a leaf it remembers writing is answered from there,
    /// as the writes staged in the round left it (the writer updates what it remembers as it
    /// stages each), so such a read is not noted: no staged write can make it stale.
    var shapes: SubtreeShapes? = nil
    /// Whether a listing read from the snapshot may be remembered (`RememberedReads`): the
    /// round has nothing staged, so the snapshot is the state the write applies to.
    var remembersListings = false

    /// The node at `path` (nil = null).
    public func node(at path: DataPath) -> Node? {
        reads.note(path)
        return reader.node(at: path)
    }

    /// The children of `path` without their subtrees (see `NamespaceReader.shallow`); from the
    /// writer's memory when nothing changed them since it last read them there.
    public func shallow(at path: DataPath) -> ShallowResult {
        reads.note(path)
        guard let listings = shapes?.reads, !path.isRoot else { return reader.shallow(at: path) }
        let dataKey = reader.keys.dataKey(path)
        if let remembered = listings.listing(at: dataKey) { return remembered }
        let listing = reader.shallow(at: path)
        if remembersListings { listings.remember(listing, at: dataKey) }
        return listing
    }

    /// The value at `path` when it is a leaf, nil when absent or an object (one point read, or
    /// none when the writer remembers writing that leaf: a hot counter, a time).
    public func leaf(at path: DataPath) -> LeafValue? {
        if let shapes, let leaf = shapes.rememberedLeaf(at: reader.keys.dataKey(path)) { return leaf }
        reads.note(path)
        return reader.leaf(at: path)
    }

    /// True when anything is stored at or below `path` (one seek).
    public func exists(at path: DataPath) -> Bool {
        reads.note(path)
        return reader.exists(path)
    }

    /// The last child of `path` in key order with its subtree, without reading the others
    /// (see `NamespaceReader.lastChild`).
    public func lastChild(at path: DataPath) -> (key: ChildKey, node: Node)? {
        let last = reader.lastChild(at: path)
        reads.noteLastChild(of: path, found: last?.key)
        return last
    }
}

/// Read access to the state a write leaves (before its triggers' updates), noted like the
/// snapshot's reads.
public struct TriggerWrittenState {
    let overlay: WriteOverlay
    let reads: TriggerReads
    /// What the writes staged before this one in the writer's round (not in `overlay`) do to
    /// the children of a node after a child; nil: nothing is staged.
    var stagedLaterChildren: ((DataPath, ChildKey) -> TouchedKeys.LaterChildren)? = nil

    /// The node at `path` after the write (nil = null).
    public func node(at path: DataPath) -> Node? {
        reads.note(path)
        return overlay.value(at: path)
    }

    /// The last child of `path` in key order after the write, with its subtree; costs the
    /// children the write touches there, not all of them.
    public func lastChild(at path: DataPath) -> (key: ChildKey, node: Node)? {
        let last = overlay.lastChild(at: path)
        reads.noteLastChild(of: path, found: last?.key)
        return last
    }

    /// True when `key` is the last child of `path` in key order after the write. Unlike
    /// `lastChild(at:)`, a write applied just before this one that added a later child (a chat
    /// message from another sender whose id sorts after this one's) answers it without the
    /// writer applying that write first and running the trigger again: writes that add
    /// children never make an earlier child the last one again.
    public func isLastChild(_ key: ChildKey, at path: DataPath) -> Bool {
        switch stagedLaterChildren?(path, key) ?? .untouched {
        case .added:
            return false
        case .replaced:
            return lastChild(at: path)?.key == key
        case .untouched:
            guard overlay.lastChildKey(at: path) == key else { return false }
            reads.noteLastChild(of: path, found: key)
            return true
        }
    }
}
