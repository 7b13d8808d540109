/// Errors of the data store (LevelDB, its writers and triggers), kept here so that every layer
/// above maps them (REST status, wire `failure`, callable code) without depending on the store.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable {
        private enum Base: Hashable, Sendable {
            case io, corrupt, closed, locked, invalidNamespace, indexNotDefined, invalidWrite, permissionDenied,
                triggerFailed, storageFailure, damaged, notOwner
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// LevelDB or the file system failed.
        public static let io = Code(.io)
        /// Stored bytes could not be decoded.
        public static let corrupt = Code(.corrupt)
        /// The store is closed.
        public static let closed = Code(.closed)
        /// Another process holds the data directory.
        public static let locked = Code(.locked)
        /// A namespace name was refused.
        public static let invalidNamespace = Code(.invalidNamespace)
        /// An ordered query needs an `.indexOn` that is not defined.
        public static let indexNotDefined = Code(.indexNotDefined)
        /// A write was refused (overlapping update paths, too deep, ...).
        public static let invalidWrite = Code(.invalidWrite)
        /// The caller's access check (security rules) refused the operation.
        public static let permissionDenied = Code(.permissionDenied)
        /// A write trigger failed with an error of its own (not a `WriteRefusal`): the server's
        /// failure, not the client's; nothing was written.
        public static let triggerFailed = Code(.triggerFailed)
        /// The disk refused a write (full, read-only, an I/O error): nothing was written, and
        /// writes stay refused until the store could be reopened (it retries by itself).
        public static let storageFailure = Code(.storageFailure)
        /// LevelDB found the store's files damaged (a checksum or a file missing): what was read
        /// cannot be trusted and nothing more is written; `hearth doctor` repairs what it can.
        public static let damaged = Code(.damaged)
        /// In a cluster: this node's commit of the namespace was not accepted into the cluster's
        /// changelog (another node took the namespace over, or PostgreSQL did not answer), so
        /// nothing of it was acknowledged; the node no longer serves the namespace from here.
        public static let notOwner = Code(.notOwner)
    }

    /// A refusal by security rules, in Firebase's words.
    public static let permissionDenied = StoreError(.permissionDenied, "Permission denied")

    public let code: Code
    /// A sentence for the user; for `indexNotDefined`, Firebase's exact text.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
