import HearthDatabase
import NIOHTTP1

/// What a node of a cluster tells `DirectRESTWriteHandler`, which writes plain REST writes on
/// their connection's loop.
extension ClusterRouting {
    /// Whether this node writes `namespace` itself, as the router would, with nothing to wait
    /// for: it serves the namespace now, and the namespace's rules are a file here or the
    /// caller is the admin (rules kept only in PostgreSQL are the router's to look up). False
    /// when the router decides, so it answers as it always has: a namespace another node
    /// serves, one being taken over, one whose rules are not known here.
    func writesDirectly(namespace: String, caller: Caller) -> Bool {
        membership.serves(namespace) && (caller.bypassesRules || database.hasRulesFile(namespace))
    }

    /// Whether another node of the cluster relayed the request (its stamp is valid): it was
    /// counted against its client's address there, and its connection is that node's. The
    /// router's test: a stamp that is not valid is a client's request like any other.
    func isRelayedByNode(_ head: HTTPRequestHead) -> Bool {
        guard let stamp = head.headers.first(name: ClusterForwarder.header.rawName) else { return false }
        return forwarder.isValidStamp(stamp)
    }
}
