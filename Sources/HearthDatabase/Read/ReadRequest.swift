public import HearthCore
import HearthStore

/// A one-time read of a location (REST `GET`): what to read, how to render it, and whether its
/// ETag is wanted or must differ from one the caller has.
public struct ReadRequest: Sendable {
    /// What of the location is read.
    public enum Selection: Sendable {
        /// The value, or with `query` only the children it selects.
        case value(query: Query?)
        /// The children's keys (leaves with their values), from after `startAfter`, at most `limit`.
        case shallow(startAfter: ChildKey?, limit: Int?)
        /// The node's priority (`/.priority`), read as a read of the node.
        case priority
    }

    public var path: DataPath
    public var selection: Selection
    /// How a value is rendered (`format=export` keeps priorities).
    public var format: RenderFormat
    /// Whether the result carries the location's ETag.
    public var wantsETag: Bool
    /// An ETag the caller has: when it is the location's, the result is `.notModified`.
    public var ifNoneMatch: String?

    public init(
        path: DataPath,
        selection: Selection = .value(query: nil),
        format: RenderFormat = .plain,
        wantsETag: Bool = false,
        ifNoneMatch: String? = nil
    ) {
        self.path = path
        self.selection = selection
        self.format = format
        self.wantsETag = wantsETag
        self.ifNoneMatch = ifNoneMatch
    }
}

/// What a `ReadRequest` found, read in one snapshot.
public enum ReadResult: Sendable {
    /// The content, with the location's ETag when it was wanted (or `ifNoneMatch` was given).
    case found(ReadContent, etag: String?)
    /// The location's ETag is the request's `ifNoneMatch`: nothing else is read.
    case notModified(etag: String)
}

/// The content of a read, by its `ReadRequest.Selection`.
public enum ReadContent: Sendable {
    /// The value as JSON (`null` when absent; `{}` for a query that selects nothing).
    case json([UInt8])
    /// The shallow listing.
    case shallow(ShallowResult)
    /// The node's priority (nil: none).
    case priority(Priority?)
}
