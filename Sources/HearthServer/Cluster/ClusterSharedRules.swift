import Foundation
import HearthCluster
import HearthCore
import HearthDatabase
import HearthStore
import Synchronization

/// The cluster's rules: each namespace's documents in the shared log `rules/<namespace>` of the
/// cluster's PostgreSQL, one entry per version (`{"origin", "text"}`), the newest in force.
/// Publishing appends after the newest entry, again after another node's publish took that
/// position: the last publish wins, as the last `PUT` does on a single server. The newest
/// `Store.rulesHistoryLimit` versions are kept, as on a single server.
final class ClusterSharedRules: SharedRules {
    let directory: ClusterDirectory
    let nodeID: String
    /// Namespaces the cluster has rules for (they are never removed).
    private let known = Mutex<Set<String>>([])
    /// At most this many namespaces are remembered as having rules.
    static let knownLimit = 10_000

    init(directory: ClusterDirectory, nodeID: String) {
        self.directory = directory
        self.nodeID = nodeID
    }

    static func stream(_ namespace: String) -> String { "rules/" + namespace }

    func history(of namespace: String, limit: Int) async throws -> [RulesVersion] {
        try await directory.sharedLogTail(Self.stream(namespace), limit: limit).map { entry in
            let json = try? JSONParser.parse(entry.batch)
            return RulesVersion(
                version: UInt64(entry.position),
                publishedAt: entry.writtenMillis.rounded(),
                origin: json?["origin"]?.stringValue ?? "put",
                text: json?["text"]?.stringValue ?? ""
            )
        }
    }

    func publish(_ text: String, for namespace: String, origin: String) async throws {
        var batch: [UInt8] = []
        JSONRenderer.render(.object([("origin", .string(origin)), ("text", .string(text))]), into: &batch)
        let stream = Self.stream(namespace)
        for _ in 0..<32 {
            let newest = try await directory.sharedLogTail(stream, limit: 1).last?.position ?? 0
            if try await directory.appendShared(stream, batch: batch, at: newest + 1, node: nodeID).get() {
                remember(namespace)
                // Best effort: versions a failed trim leaves go with the next publish.
                try? await directory.trimShared(stream, before: newest + 2 - Int64(Store.rulesHistoryLimit)).get()
                return
            }
        }
        throw ClusterError.unavailable("other nodes kept publishing the rules of '\(namespace)' first")
    }

    func has(_ namespace: String) async throws -> Bool {
        if known.withLock({ $0.contains(namespace) }) { return true }
        let found = try await !directory.sharedLogTail(Self.stream(namespace), limit: 1).isEmpty
        if found { remember(namespace) }
        return found
    }

    private func remember(_ namespace: String) {
        known.withLock { known in
            if known.count < Self.knownLimit { known.insert(namespace) }
        }
    }
}
