import HearthDatabase

extension ClusterRouting {
    /// Whether this node writes `namespace` itself, as the router would, with nothing to wait
    /// for: it serves the namespace now, and the namespace's rules are a file here or the
    /// caller is the admin (rules kept only in PostgreSQL are the router's to look up). False
    /// when the router decides, so it answers as it always has: a namespace another node
    /// serves, one being taken over, one whose rules are not known here.
    func writesDirectly(namespace: String, caller: Caller) -> Bool {
        membership.serves(namespace) && (caller.bypassesRules || database.hasRulesFile(namespace))
    }
}
