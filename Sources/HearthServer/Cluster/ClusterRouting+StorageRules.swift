import Hummingbird

extension ClusterRouting {
    /// A Firebase Storage request (`/v0/b/…`) of a client whose storage rules in force read the
    /// database (`database.get/exists` of the storage namespace: a chat's
    /// members deciding its attachments) goes to the node that owns that namespace, which
    /// decides it on the namespace's data and serves it (files are the cluster's, so any node
    /// can); nil when this node decides it (the admin, rules that read no database, the
    /// namespace owned here, or a request another node forwarded).
    func forwardStorageReadingDatabase(_ request: Request, route: HearthRoute, query: Substring?) async -> Response? {
        guard case .storage = route, storageRulesReadDatabase(), !isForwarded(request),
            !credentials.isAdmin(request, query: query)
        else { return nil }
        return await sendToOwner(request, namespace: storageNamespace)
    }
}
