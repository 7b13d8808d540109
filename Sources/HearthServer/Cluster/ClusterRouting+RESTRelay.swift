import HTTPTypes
import NIOHTTP1

extension ClusterRouting {
    /// Whether a REST request the node reads goes to its owner by `ClusterRESTRelay`, decided
    /// from its head alone on the connection's event loop: only what `intercept` would forward
    /// without asking anything it must wait for. Everything else (this node's own requests,
    /// SSE, a namespace whose owner or rules are not known here yet, a client's `Connection:
    /// close`, `Expect`, another node's forward) goes to the router, which forwards it the long
    /// way (`ClusterForwarder`) where it must.
    func relayTarget(_ head: HTTPRequestHead) -> (ownerURL: String, namespace: String)? {
        guard head.version == .http1_1, head.isKeepAlive, head.method != .OPTIONS, head.method != .CONNECT,
            !head.headers.contains(name: "upgrade"), !head.headers.contains(name: "expect"),
            !head.headers.contains(name: ClusterForwarder.header.rawName),
            !head.headers[canonicalForm: "accept"].contains(where: { $0.contains("text/event-stream") })
        else { return nil }
        let target = PercentDecoding.splitTarget(head.uri)
        guard target.path.hasSuffix(".json"), target.path != "/.settings/namespaces.json",
            HearthRoute(method: HTTPRequest.Method(head.method.rawValue) ?? .get, rawTarget: head.uri, target: target)
                == .database,
            let query = try? QueryString(target.query)
        else { return nil }
        let namespace = query["ns"] ?? "default"
        guard RESTOptions.isValidNamespace(namespace),
            database.hasRulesFile(namespace)
                || credentials.isAdmin(authorization: head.headers.first(name: "authorization"), query: target.query),
            let url = membership.knownOwner(namespace)
        else { return nil }
        return (url, namespace)
    }
}
