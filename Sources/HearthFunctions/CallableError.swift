public import HearthCore

/// Why a call failed, as the client is told: a status of Firebase's callable protocol (the
/// gRPC code names, `INVALID_ARGUMENT`, `NOT_FOUND`, ...) and one sentence that names the
/// offending field or value. The server maps each code to its HTTP status in one place.
public struct CallableError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status sent to the client; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The wire name, e.g. `INVALID_ARGUMENT`.
        public let status: String

        private init(_ status: String) { self.status = status }

        public static let cancelled = Code("CANCELLED")
        public static let unknown = Code("UNKNOWN")
        public static let invalidArgument = Code("INVALID_ARGUMENT")
        public static let deadlineExceeded = Code("DEADLINE_EXCEEDED")
        public static let notFound = Code("NOT_FOUND")
        public static let alreadyExists = Code("ALREADY_EXISTS")
        public static let permissionDenied = Code("PERMISSION_DENIED")
        public static let unauthenticated = Code("UNAUTHENTICATED")
        public static let resourceExhausted = Code("RESOURCE_EXHAUSTED")
        public static let failedPrecondition = Code("FAILED_PRECONDITION")
        public static let aborted = Code("ABORTED")
        public static let outOfRange = Code("OUT_OF_RANGE")
        public static let unimplemented = Code("UNIMPLEMENTED")
        /// The server's own failure: the client gets a generic message, the log the cause.
        public static let `internal` = Code("INTERNAL")
        public static let unavailable = Code("UNAVAILABLE")
        public static let dataLoss = Code("DATA_LOSS")

        public var description: String { status }
    }

    public let code: Code
    /// One sentence for the caller (for `INTERNAL`, for the log only).
    public let message: String
    /// Sent as the error's `details` (the SDKs hand it to the caller as `error.details`).
    public var details: JSONValue?
    /// Seconds after which a retry may succeed: sent as the `Retry-After` header
    /// (`RESOURCE_EXHAUSTED`, `UNAVAILABLE`).
    public var retryAfterSeconds: Int?

    public init(_ code: Code, _ message: String, details: JSONValue? = nil, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code.status): \(message)" }

    /// `INVALID_ARGUMENT` with `message`.
    public static func invalidArgument(_ message: String) -> CallableError { CallableError(.invalidArgument, message) }

    /// A failure of the server's own (a store error, a bug), described for the log.
    public static func `internal`(_ cause: any Error) -> CallableError {
        CallableError(.internal, "\(cause)")
    }
}
