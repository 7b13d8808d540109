public import HearthCore
public import HearthProtocol

/// One registered listener: returned by `NamespaceEngine.listen`, passed back with each
/// delivery and to `unlisten`.
public struct ListenRegistration: Hashable, Sendable, CustomStringConvertible {
    /// Unique within the process.
    public let id: UInt64
    /// The listened location.
    public let path: DataPath
    /// The canonical query identifier (`default` for listens that load all data).
    public let queryIdentifier: QueryIdentifier
    /// The query and the shallow range, behind one reference and only when there is either:
    /// a registration is copied into several tables per connection (the access guard, the
    /// connection's, the fan-out's), and inline they made it 208 bytes instead of 40.
    private let extent: Extent?

    /// The query, or nil for a listen that loads all data (served as the default listen).
    public var query: Query? { extent?.query }
    /// The range of an admin's shallow listen (`NamespaceEngine.listenShallow`), else nil.
    public var shallow: ShallowRange? { extent?.shallow }

    private final class Extent: Sendable {
        let query: Query?
        let shallow: ShallowRange?

        init(query: Query?, shallow: ShallowRange?) {
            self.query = query
            self.shallow = shallow
        }
    }

    init(id: UInt64, path: DataPath, query: Query?, queryIdentifier: QueryIdentifier, shallow: ShallowRange? = nil) {
        self.id = id
        self.path = path
        self.queryIdentifier = queryIdentifier
        self.extent = query == nil && shallow == nil ? nil : Extent(query: query, shallow: shallow)
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
