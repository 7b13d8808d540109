public import HearthCore

/// What `Database.open(_:logger:activity:)` opens: the data directory, how writes reach its
/// disk, what runs with them, where the rules are and what seeds an empty database.
public struct DatabaseConfiguration: Sendable {
    /// The data directory (created when missing).
    public var dataDirectory: String
    /// How writes reach the disk before they are acknowledged.
    public var syncMode: SyncMode
    /// The triggers, lookup indexes and commit observers of each namespace.
    public var triggers: DatabaseTriggers
    /// The server's time (timestamps, rules' `now`); a test passes a clock it moves by hand.
    public var clock: ServerClock
    /// The rules file of `default` (other namespaces' files lie beside it).
    public var rulesFile: String
    /// JSON imported into `default` when the whole database is empty; nil or a missing file
    /// skips it.
    public var seedFile: String?
    /// Where the namespaces' writers run their rounds.
    public var writer = WriterTuning()
    /// In a cluster (`hearth serve --cluster`): which namespaces this node serves now, and the
    /// changelog each one's commits go to. Nil for a single server.
    public var cluster: ClusterHooks?

    public init(
        dataDirectory: String,
        syncMode: SyncMode = .periodic(milliseconds: 100),
        triggers: DatabaseTriggers = DatabaseTriggers(),
        clock: ServerClock = .system,
        rulesFile: String,
        seedFile: String? = nil,
        writer: WriterTuning = WriterTuning()
    ) {
        self.dataDirectory = dataDirectory
        self.syncMode = syncMode
        self.triggers = triggers
        self.clock = clock
        self.rulesFile = rulesFile
        self.seedFile = seedFile
        self.writer = writer
    }
}

/// What a clustered database asks of the node it runs on (HearthServer's cluster membership):
/// whether it owns a namespace now, and where an owned namespace's commits go.
public struct ClusterHooks: Sendable {
    /// True while this node holds the namespace's lease (and caught its copy up).
    public let owns: @Sendable (String) -> Bool
    /// The changelog of an owned namespace (`ReplicationSink`), asked for when it opens; for
    /// any other namespace a sink that refuses, so nothing unreplicated is ever committed.
    public let sink: @Sendable (String) -> ReplicationSink
    /// The cluster's rules (nil: each node's files, as on a single server).
    public let rules: (any SharedRules)?
    /// Told when the store's writers end a pass of rounds: the appends the sinks held for it
    /// (`ReplicationSink.Timing.afterPass`) go now.
    public let passEnded: @Sendable () -> Void

    public init(
        owns: @escaping @Sendable (String) -> Bool,
        sink: @escaping @Sendable (String) -> ReplicationSink,
        rules: (any SharedRules)? = nil,
        passEnded: @escaping @Sendable () -> Void = {}
    ) {
        self.owns = owns
        self.sink = sink
        self.rules = rules
        self.passEnded = passEnded
    }
}
