/// The one error type of HearthStorage: a stable `code` to switch on (each with the HTTP status
/// Firebase answers it with) and a one-sentence `message` that says what to do.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case invalidName, notFound, tooLarge, invalidMetadata, invalidOffset, incomplete, tooManySessions, io,
                diskFault, closed, forbidden, unavailable, superseded
        }

        let kind: Kind

        /// An object or bucket name the store refuses (400).
        public static let invalidName = Code(kind: .invalidName)
        /// No such object (404).
        public static let notFound = Code(kind: .notFound)
        /// The object is larger than the server takes (413).
        public static let tooLarge = Code(kind: .tooLarge)
        /// Custom metadata or a metadata field the store refuses (400).
        public static let invalidMetadata = Code(kind: .invalidMetadata)
        /// A resumable chunk's offset is not what the upload has received (400).
        public static let invalidOffset = Code(kind: .invalidOffset)
        /// A resumable upload was finalized before all its announced bytes came (400).
        public static let incomplete = Code(kind: .incomplete)
        /// Too many resumable uploads are open (429).
        public static let tooManySessions = Code(kind: .tooManySessions)
        /// The disk or the catalog failed; nothing was stored (500).
        public static let io = Code(kind: .io)
        /// The disk refuses writes for now (full, read-only, failing), as the database's writes
        /// are refused then: nothing was stored; retry later (503).
        public static let diskFault = Code(kind: .diskFault)
        /// The store is closed (503).
        public static let closed = Code(kind: .closed)
        /// The storage rules (or, without them, the admin-only default) refuse the request (403).
        public static let forbidden = Code(kind: .forbidden)
        /// In a cluster: the cluster's PostgreSQL did not answer; nothing was stored (503).
        public static let unavailable = Code(kind: .unavailable)
        /// In a cluster: another node changed the catalog first (its batch took the position
        /// this change was appended at). The store catches up and makes the change again; it
        /// reaches a caller only when that kept happening (503).
        public static let superseded = Code(kind: .superseded)

        /// The HTTP status Firebase answers with.
        public var httpStatus: Int {
            switch kind {
            case .invalidName, .invalidMetadata, .invalidOffset, .incomplete: return 400
            case .tooManySessions: return 429
            case .notFound: return 404
            case .forbidden: return 403
            case .tooLarge: return 413
            case .io: return 500
            case .diskFault, .closed, .unavailable, .superseded: return 503
            }
        }

        public var description: String { "\(kind)" }
    }

    public let code: Code
    /// One sentence for people.
    public let message: String
    /// What only the server log may say (the file and the system's error), when the message
    /// leaves it out for the client.
    public let detail: String?

    public init(_ code: Code, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String { message }

    /// The cluster's PostgreSQL did not answer `error`.
    static func unavailable(_ error: any Error) -> StorageError {
        StorageError(
            .unavailable,
            "The cluster's PostgreSQL did not answer; nothing was changed, retry.",
            detail: "\(error)"
        )
    }
}
