import HTTPTypes
import Hummingbird

/// The server's routing table: which way in a request takes, decided once from its method and
/// target, in this order. Preflights (`OPTIONS`) of every path go to the database's responder,
/// which answers CORS for all of them.
///
/// | route | requests | entry point |
/// | --- | --- | --- |
/// | `metrics` | `GET`/`HEAD /metrics` | `MetricsEndpoint` (admin) |
/// | `backup` | `/.backup` | `BackupEndpoint` (admin) |
/// | `accounts` | `/identitytoolkit.googleapis.com/v1/…`, `/securetoken.googleapis.com/v1/token` | `AccountsEndpoint` |
/// | `storage` | `/v0/b/BUCKET/o[/NAME]` | `StorageEndpoint` |
/// | `storageRules` | `/.settings/storage.rules[:check\|:simulate]` | `StorageEndpoint` (admin) |
/// | `gcs` | `/storage/v1/b[/…]`, `/upload/storage/v1/b/…`, `/download/storage/v1/b/…` | `StorageEndpoint` (admin) |
/// | `callable` | `/functions/NAME`, `/PROJECT/REGION/NAME` | `CallableEndpoint` |
/// | `database` | everything else: REST `*.json`, SSE, rules, health, the console | `HearthResponder` |
///
/// Every route but `metrics` counts against the client address's request rate first.
enum HearthRoute: Equatable {
    case metrics(query: Substring?)
    case backup(query: Substring?)
    case accounts(AccountsRoute)
    case callable(CallableRoute)
    case storage(StorageRoute)
    case gcs(GCSRoute)
    case storageRules(StorageRulesAction, query: Substring?)
    case database

    /// Whether the request counts against its client address's rate (all but the scrape).
    var countsAgainstRate: Bool {
        if case .metrics = self { return false }
        return true
    }

    init(_ request: Request, target: (path: Substring, query: Substring?)) {
        self.init(method: request.method, rawTarget: request.head.path ?? "/", target: target)
    }

    /// The route of a request with `method` for `rawTarget` (its request line's target, as
    /// sent), split as `PercentDecoding.splitTarget` splits it.
    init(method: HTTPRequest.Method, rawTarget: String, target: (path: Substring, query: Substring?)) {
        let path = target.path
        if path == MetricsEndpoint.path, method == .get || method == .head {
            self = .metrics(query: target.query)
        } else if method == .options {
            self = .database
        } else if let action = StorageRulesAction(path: path) {
            self = .storageRules(action, query: target.query)
        } else if path == BackupEndpoint.path {
            self = .backup(query: target.query)
        } else if let route = AccountsRoute(target: rawTarget) {
            self = .accounts(route)
        } else if let route = StorageRoute(target: rawTarget) {
            self = .storage(route)
        } else if let route = GCSRoute(target: rawTarget) {
            // Before callables: `/storage/v1/b` has the shape of `/PROJECT/REGION/NAME`.
            self = .gcs(route)
        } else if let route = CallableRoute(target: rawTarget) {
            self = .callable(route)
        } else {
            self = .database
        }
    }
}
