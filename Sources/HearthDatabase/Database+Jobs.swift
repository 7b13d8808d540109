public import HearthStore

/// What a consumer of queued jobs (`ServerJob`) needs beyond one engine: where a previous run
/// left jobs, and every engine, so it can wake on the commits that queue more.
extension Database {
    /// The namespaces on disk holding at least one job of `queue`, sorted (a consumer's
    /// backlog at start: jobs committed before a crash or a stop). Opens no engine.
    /// - Throws: `StoreError` when the store cannot be read.
    public func namespaces(withJobsIn queue: String) throws -> [String] {
        try servedNamespaceNames().sorted().filter { name in
            try !store.namespace(name).jobs(in: queue, limit: 1).isEmpty
        }
    }

    /// How many jobs of `queue` the namespaces on disk hold together, counted up to `limit`
    /// (a gauge's reading: a backlog larger than that reads as `limit`).
    /// - Throws: `StoreError` when the store cannot be read.
    public func jobCount(in queue: String, limit: Int) throws -> Int {
        var count = 0
        for name in try servedNamespaceNames() where count < limit {
            count += try store.namespace(name).jobCount(in: queue, limit: limit - count)
        }
        return count
    }

    /// Calls `action` with the engine of every namespace: each one open now, then each one as
    /// it is created (before `namespace(_:)` returns it). An engine created while this call registers may
    /// be handed over twice; a consumer keeps the names it saw.
    public func observeEngines(_ action: @escaping @Sendable (String, NamespaceEngine) -> Void) {
        engineObservers.withLock { $0.append(action) }
        for (name, engine) in openEngines { action(name, engine) }
    }

    /// The namespaces on disk this node serves: all of them on a single server; in a cluster,
    /// those it owns now (another node's copy is not this node's to work on).
    func servedNamespaceNames() throws -> [String] {
        let names = try store.namespaceNames()
        guard let owns else { return names }
        return names.filter(owns)
    }
}
