public import HearthCore

/// A write for the database: a set (with an optional transaction hash) or a merge. Used both
/// for immediate writes and for onDisconnect operations (which never carry a hash).
public enum WriteRequest: Sendable, Equatable {
    case set(PutRequest)
    case merge(MergeRequest)

    /// The location written.
    public var path: DataPath {
        switch self {
        case .set(let put): return put.path
        case .merge(let merge): return merge.path
        }
    }
}
