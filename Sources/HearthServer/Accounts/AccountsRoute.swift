/// Which Firebase Auth REST operation a request target names. The Admin SDK's
/// `/v1/projects/<id>/accounts:...` form maps to the same operations.
enum AccountsRoute: Equatable, Sendable {
    case signUp, signInWithPassword, lookup, update, delete, sendOobCode, resetPassword, token, batchGet
    /// Under an auth prefix but not an operation Hearth serves.
    case unknown(String)

    static let identityPrefix = "/identitytoolkit.googleapis.com/v1/"
    static let tokenPath = "/securetoken.googleapis.com/v1/token"

    /// nil when `target` is not an auth URL at all.
    init?(target: String) {
        // Most requests are database requests: turn them away on their first bytes.
        guard
            target.utf8.starts(with: "/identitytoolkit.googleapis.com/".utf8)
                || target.utf8.starts(with: "/securetoken.googleapis.com/".utf8)
        else { return nil }
        let path =
            target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if path == Self.tokenPath {
            self = .token
            return
        }
        guard path.hasPrefix(Self.identityPrefix) else {
            if path.hasPrefix("/securetoken.googleapis.com/") { self = .unknown(path) } else { return nil }
            return
        }
        var operation = Substring(path.dropFirst(Self.identityPrefix.count))
        if operation.hasPrefix("projects/"), let slash = operation.dropFirst("projects/".count).firstIndex(of: "/") {
            operation = operation[operation.index(after: slash)...]
        }
        switch operation {
        case "accounts:signUp", "accounts": self = .signUp
        case "accounts:signInWithPassword": self = .signInWithPassword
        case "accounts:lookup": self = .lookup
        case "accounts:update": self = .update
        case "accounts:delete": self = .delete
        case "accounts:sendOobCode": self = .sendOobCode
        case "accounts:resetPassword": self = .resetPassword
        case "accounts:batchGet": self = .batchGet
        default: self = .unknown(path)
        }
    }
}
