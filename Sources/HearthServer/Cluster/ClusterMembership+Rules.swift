import HearthCluster
import HearthDatabase

extension ClusterMembership {
    /// How often the served namespaces' rules are compared with the cluster's newest.
    static let rulesFollowingInterval: Duration = .milliseconds(200)

    /// Puts in force, in every namespace served here, the rules version another node published
    /// (an edit of that node's file, `UnloadedRulesFiles`), a few times a second: one query
    /// for all of them, and a namespace's rules are read only when its log moved.
    func followRules() async {
        let served = Array(serving().keys)
        guard let database = attachedDatabase else { return }
        guard !served.isEmpty else {
            followedRules.withLock { $0 = [:] }
            return
        }
        let heads: [String: Int64]
        do {
            heads = try await directory.sharedLogHeads(served.map(ClusterSharedRules.stream))
        } catch {
            return  // PostgreSQL does not answer: the leases' renewals report it.
        }
        let moved = followedRules.withLock { followed -> [String] in
            var moved: [String] = []
            var next: [String: Int64] = [:]
            for name in served {
                guard let head = heads[ClusterSharedRules.stream(name)] else { continue }
                next[name] = head
                if followed[name] != head { moved.append(name) }
            }
            followed = next
            return moved
        }
        for name in moved.sorted() {
            do {
                try await database.rules.adopt(name)
            } catch {
                logger.error(
                    "the cluster's newest rules were not put in force; keeping the rules in force",
                    metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"]
                )
            }
        }
    }
}
