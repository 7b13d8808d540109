public import HearthCore
public import HearthProtocol

/// One registered listener: returned by `NamespaceEngine.listen`, passed back with each
/// delivery and to `unlisten`.
public struct ListenRegistration: Hashable, Sendable, CustomStringConvertible {
    /// Unique within the process.
    public let id: UInt64
    /// The listened location.
    public let path: DataPath
    /// The query, or nil for a listen that loads all data (served as the default listen).
    public let query: Query?
    /// The canonical query identifier (`default` for listens that load all data).
    public let queryIdentifier: QueryIdentifier
    /// The range of an admin's shallow listen (`NamespaceEngine.listenShallow`), else nil.
    public let shallow: ShallowRange?

    init(id: UInt64, path: DataPath, query: Query?, queryIdentifier: QueryIdentifier, shallow: ShallowRange? = nil) {
        self.id = id
        self.path = path
        self.query = query
        self.queryIdentifier = queryIdentifier
        self.shallow = shallow
    }

    /// The session's key for this listen (`RealtimeSession.push(encoded:for:)`).
    public var key: ListenKey { ListenKey(path: path, query: queryIdentifier) }

    public static func == (lhs: ListenRegistration, rhs: ListenRegistration) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    public var description: String { "#\(id) \(path) \(queryIdentifier)" }
}

/// What a new listener shows first.
public struct ListenStart: Sendable {
    /// The current value at the path, through the query (a query's result has no priority at the
    /// top, as the SDK's filtered views have none). Always present, also when `hash` equals the
    /// client's hash.
    public let data: Node?
    /// `ValueHash` of `data`, as the SDK computes it (`""` for null). The transport compares it
    /// with the listen request's `h`: equal → complete with `.listeningUnchanged`, otherwise
    /// `.listening(data:)`.
    public let hash: String
    public let registration: ListenRegistration
    /// `["no_index"]` for an ordered query the rules do not index (evaluated in memory).
    public let warnings: [String]
    /// The namespace sequence number `data` was read at; deliveries carry only later commits.
    public let sequence: UInt64
}
