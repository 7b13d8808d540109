import HTTPTypes
import NIOHTTP1

extension ClusterRouting {
    /// Where a REST request (or a callable's call) the node reads goes by `ClusterRESTRelay`,
    /// decided from its head alone on the connection's event loop; nil: the router's way. Only
    /// what `intercept` would forward without asking anything it must wait for. Everything else (this node's own requests,
    /// SSE, a namespace whose owner or rules are not known here yet, a client's `Connection:
    /// close`, `Expect`, another node's forward) goes to the router, which forwards it the long
    /// way (`ClusterForwarder`) where it must.
    func relayTarget(_ head: HTTPRequestHead) -> RelayTarget? {
        guard head.version == .http1_1, head.isKeepAlive, head.method != .OPTIONS, head.method != .CONNECT,
            !head.headers.contains(name: "upgrade"), !head.headers.contains(name: "expect"),
            !head.headers.contains(name: ClusterForwarder.header.rawName),
            !head.headers[canonicalForm: "accept"].contains(where: { $0.contains("text/event-stream") })
        else { return nil }
        let target = PercentDecoding.splitTarget(head.uri)
        let route = HearthRoute(
            method: HTTPRequest.Method(head.method.rawValue) ?? .get,
            rawTarget: head.uri,
            target: target
        )
        guard let query = try? QueryString(target.query) else { return nil }
        let namespace = query["ns"] ?? "default"
        guard RESTOptions.isValidNamespace(namespace) else { return nil }
        let counted: MetricsRoute
        switch route {
        case .database:
            // A namespace's data (the rules and their tools stay with the router's forward).
            guard target.path.hasSuffix(".json"), target.path != "/.settings/namespaces.json",
                database.hasRulesFile(namespace)
                    || credentials.isAdmin(
                        authorization: head.headers.first(name: "authorization"),
                        query: target.query
                    )
            else { return nil }
            counted = .rest
        case .callable(let callable):
            // Served whatever the namespace's rules, where it is served at all.
            guard callables.callable(named: callable.name, in: namespace) != nil else { return nil }
            counted = .functions
        default:
            return nil
        }
        guard let url = membership.knownOwner(namespace) else { return nil }
        return RelayTarget(ownerURL: url, namespace: namespace, metricsRoute: counted)
    }
}

/// A request `ClusterRESTRelay` sends to `ownerURL`, the node serving `namespace`; `/metrics`
/// counts it under `metricsRoute`.
struct RelayTarget {
    let ownerURL: String
    let namespace: String
    let metricsRoute: MetricsRoute
}
