import HTTPTypes
import HearthAccounts
import HearthCore
import HearthDatabase
import HearthProtocol
import Hummingbird
import NIOCore
import NIOHTTP1

/// The one mapping of errors to what a client is told, whichever way it came: the REST status
/// and message (`ErrorResponder`) and the realtime wire status (`permission_denied`,
/// `expired_token`, `failure`, ...). Errors are recognised by their type and code, never by
/// their text. An error that is not the client's doing (an I/O failure, a bug) is `isInternal`:
/// clients get a generic message and the caller logs the error.
struct ErrorAnswer: Sendable {
    let status: HTTPResponse.Status
    let wireStatus: ResponseStatus
    /// The message of a REST body (`{"error": ...}`) and, unless `isInternal`, of a wire response.
    let message: String
    let isInternal: Bool

    init(_ status: HTTPResponse.Status, _ wireStatus: ResponseStatus, _ message: String, isInternal: Bool = false) {
        self.status = status
        self.wireStatus = wireStatus
        self.message = message
        self.isInternal = isInternal
    }

    /// The answer to a failure of the server's own.
    static let internalFailure = ErrorAnswer(.internalServerError, .failure, "Internal server error", isInternal: true)

    /// The message of a wire response: the client's mistake, or a generic sentence.
    var wireMessage: String { isInternal ? "The server could not complete the request." : message }

    /// The answer as a REST refusal.
    var restError: RESTError { RESTError(status, message, wireStatus: wireStatus) }

    /// The answer to `error`.
    static func to(_ error: any Error) -> ErrorAnswer {
        switch error {
        case let error as RESTError:
            return ErrorAnswer(error.status, error.wireStatus, error.message)
        case let error as CredentialError:
            return credential(error)
        case let error as CoreError:
            return ErrorAnswer(.badRequest, .failure, error.message)
        case let error as StoreError:
            return store(error)
        case let error as DatabaseError:
            return ErrorAnswer(.badRequest, .failure, error.message)
        case let error as AccountsError:
            return accounts(error)
        case let error as HTTPParserError:
            // A body that breaks HTTP framing (a bad chunk size); the connection closes after this.
            return ErrorAnswer(.badRequest, .failure, "Malformed HTTP request: \(HTTPRefusal.reason(error)).")
        case is NIOTooManyBytesError:
            return ErrorAnswer(.contentTooLarge, .tooBig, "Request body too large.")
        case let error as HTTPError:
            return http(error)
        default:
            return .internalFailure
        }
    }

    /// Firebase's words for a refused credential.
    static func credential(_ error: CredentialError) -> ErrorAnswer {
        switch error.reason {
        case .unparsable: return ErrorAnswer(.unauthorized, .invalidToken, "Could not parse auth token.")
        case .expired: return ErrorAnswer(.unauthorized, .expiredToken, "Auth token is expired.")
        case .revoked: return ErrorAnswer(.unauthorized, .invalidToken, "Auth token is revoked: sign in again.")
        }
    }

    private static func store(_ error: StoreError) -> ErrorAnswer {
        switch error.code {
        case .indexNotDefined, .invalidWrite, .invalidNamespace:
            return ErrorAnswer(.badRequest, .failure, error.message)
        case .permissionDenied:
            return ErrorAnswer(RESTError.permissionDenied)
        case .storageFailure, .notOwner:
            // The disk refused the write (full, read-only, failing): the store says which, logs
            // it, and retries by itself; the client may retry later (503, Retry-After). In a
            // cluster, the namespace moved to another node: a retry reaches it.
            return ErrorAnswer(.serviceUnavailable, .failure, error.message)
        case .damaged:
            return ErrorAnswer(.internalServerError, .failure, error.message)
        default:
            return .internalFailure
        }
    }

    /// Firebase Auth's answers: 400 and the code (`EMAIL_EXISTS`, `WEAK_PASSWORD : ...`); a failure
    /// of the accounts store is a 500 `INTERNAL_ERROR` whose cause only the log sees.
    private static func accounts(_ error: AccountsError) -> ErrorAnswer {
        switch error.code {
        case .internalError, .databaseInUse:
            return ErrorAnswer(.internalServerError, .failure, "INTERNAL_ERROR", isInternal: true)
        case .insufficientPermission:
            return ErrorAnswer(.forbidden, .failure, error.message)
        case .unavailable:
            return ErrorAnswer(.serviceUnavailable, .failure, error.message)
        default:
            return ErrorAnswer(.badRequest, .failure, error.message)
        }
    }

    private static func http(_ error: HTTPError) -> ErrorAnswer {
        switch error.status {
        case .contentTooLarge:
            return ErrorAnswer(.contentTooLarge, .tooBig, "Request body too large.")
        case .notFound:
            return ErrorAnswer(RESTError.notFound)
        case .methodNotAllowed:
            return ErrorAnswer(.methodNotAllowed, .failure, "Method not allowed")
        default:
            return ErrorAnswer(error.status, .failure, error.body ?? error.status.reasonPhrase)
        }
    }

    private init(_ error: RESTError) {
        self.init(error.status, error.wireStatus, error.message)
    }
}
