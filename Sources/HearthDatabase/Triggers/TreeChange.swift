public import HearthCore
import HearthStore

/// What a trigger is given: one matching location a write changed, and read access to the tree
/// before the write (`snapshot`) and as the write leaves it (`written`).
public struct TreeChange {
    let change: TriggerChange

    init(_ change: TriggerChange) {
        self.change = change
    }

    /// The namespace written.
    public var namespace: String { change.namespace }
    /// The matching location.
    public var path: DataPath { change.path }
    /// The keys the pattern's `$name` segments matched, by name without the `$`.
    public var wildcards: [String: String] { change.wildcards }
    /// The value at `path` before the write (nil: none).
    public var before: Node? { change.before }
    /// The value at `path` after the client's write (nil: deleted).
    public var after: Node? { change.after }
    /// Who made the write.
    public var author: WriteAuthor { change.author }
    /// The server time of the write (milliseconds since 1970), as its timestamps resolve.
    public var now: Double { change.now }
    /// The namespace as it was before the write, for reading anything else.
    public var snapshot: Snapshot { Snapshot(snapshot: change.snapshot) }
    /// The namespace as the client's write leaves it (without what triggers derive): what a
    /// trigger needs when one write changes several matching locations, whatever the order
    /// it is called in.
    public var written: Written { Written(state: change.written) }

    /// Queues `job` in the write's commit (a transactional outbox): it is stored exactly when
    /// the write commits, and stays until its consumer removes it (`NamespaceEngine.changeJobs`).
    /// A trigger called again for the same write queues again; only the last run's jobs commit.
    public func queue(_ job: ServerJob) { change.queue(job) }

    /// Read access to the tree the write was planned against. The writer notes what is read, so
    /// a write whose trigger read something another write of the same round changed is planned
    /// again after that write.
    public struct Snapshot {
        let snapshot: TriggerSnapshot

        /// The node at `path` (nil = null).
        public func node(at path: DataPath) -> Node? { snapshot.node(at: path) }

        /// The children of `path` without their subtrees; from the writer's memory when nothing
        /// changed them since it last read them there.
        public func shallow(at path: DataPath) -> ShallowResult { snapshot.shallow(at: path) }

        /// The value at `path` when it is a leaf, nil when absent or an object (one point read, or
        /// none when the writer remembers writing that leaf: a hot counter, a time).
        public func leaf(at path: DataPath) -> LeafValue? { snapshot.leaf(at: path) }

        /// True when anything is stored at or below `path` (one seek).
        public func exists(at path: DataPath) -> Bool { snapshot.exists(at: path) }

        /// The last child of `path` in key order with its subtree, without reading the others.
        public func lastChild(at path: DataPath) -> (key: ChildKey, node: Node)? { snapshot.lastChild(at: path) }

        /// `path`, prepared for reads of this namespace repeated write after write
        /// (`hasLeaf(at:)`); kept by a trigger, it stays right for any namespace.
        public func prepare(_ path: DataPath) -> TreeLocation { TreeLocation(snapshot.location(path)) }

        /// True when a leaf is stored at `location`: `leaf(at: location.path) != nil`, without
        /// decoding it (and without reading anything when the writer remembers writing it).
        public func hasLeaf(at location: TreeLocation) -> Bool { snapshot.hasLeaf(at: location.location) }

        /// `leaf(at: location.path)` without encoding the path again (nothing read when the
        /// writer remembers writing that leaf: a hot counter).
        public func leaf(at location: TreeLocation) -> LeafValue? { snapshot.leaf(at: location.location) }
    }

    /// Read access to the tree as the write leaves it (before its triggers' updates), noted like
    /// `Snapshot`'s reads.
    public struct Written {
        let state: TriggerWrittenState

        /// The node at `path` after the write (nil = null).
        public func node(at path: DataPath) -> Node? { state.node(at: path) }

        /// The last child of `path` in key order after the write, with its subtree; costs the
        /// children the write touches there, not all of them.
        public func lastChild(at path: DataPath) -> (key: ChildKey, node: Node)? { state.lastChild(at: path) }

        /// True when `key` is the last child of `path` in key order after the write. Unlike
        /// `lastChild(at:)`, a write applied just before this one that added a later child
        /// answers it without the writer applying that write first and running the trigger
        /// again: writes that add children never make an earlier child the last one again.
        public func isLastChild(_ key: ChildKey, at path: DataPath) -> Bool { state.isLastChild(key, at: path) }
    }
}

/// A path a trigger reads for every write it sees (a chat member's `lastMessageAt`), prepared
/// once by `TreeChange.Snapshot.prepare(_:)`: the store works out how it finds it only once.
public struct TreeLocation: Sendable {
    let location: TriggerLocation

    init(_ location: TriggerLocation) {
        self.location = location
    }

    /// The location's path.
    public var path: DataPath { location.path }
}

/// A `TreeTrigger` as the store's writer runs it.
struct StoreTrigger: WriteTrigger {
    let trigger: any TreeTrigger

    var pattern: String { trigger.pattern }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        try trigger.updates(for: TreeChange(change))
    }
}
