public import HearthCore

/// The identity of a listen on one connection: its path and canonical query identifier.
public struct ListenKey: Hashable, Sendable, CustomStringConvertible {
    public var path: DataPath
    public var query: QueryIdentifier

    public init(path: DataPath, query: QueryIdentifier) {
        self.path = path
        self.query = query
    }

    /// The key of a listen on `path` through `query`.
    public init(path: DataPath, query: Query) {
        self.init(path: path, query: QueryIdentifier(query))
    }

    public var description: String { "\(path) \(query)" }
}
