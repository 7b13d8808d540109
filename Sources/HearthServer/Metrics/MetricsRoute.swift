import Hummingbird

/// The part of the server a request is for, as `/metrics` counts it.
enum MetricsRoute: String {
    case metrics, health, accounts, functions, storage, events, rest, console, other

    init(path: Substring, request: Request) {
        if path == MetricsEndpoint.path {
            self = .metrics
        } else if path == RESTService.healthPath {
            self = .health
        } else if path.hasPrefix("/identitytoolkit.googleapis.com/") || path.hasPrefix("/securetoken.googleapis.com/") {
            self = .accounts
        } else if path.hasSuffix(".json") {
            // Before the callable routes: most requests are REST, and no callable name has a dot.
            self = request.headers[.accept]?.contains("text/event-stream") == true ? .events : .rest
        } else if CallableRoute(target: String(path)) != nil {
            self = .functions
        } else if path.hasPrefix(StorageRoute.prefix) || GCSRoute.prefixes.contains(where: { path.hasPrefix($0.0) }) {
            self = .storage
        } else if path == "/" || path == "/index.html" || path.hasPrefix("/console/") {
            self = .console
        } else {
            self = .other
        }
    }
}
