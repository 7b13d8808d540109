import Foundation
import HearthCluster
import HearthCore
import HearthDatabase
import Synchronization

/// The cluster's rules: each namespace's documents in the shared log `rules/<namespace>` of the
/// cluster's PostgreSQL (`ClusterRulesVersions`: one entry per version, the newest in force,
/// the last publish wins).
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
        let stream = Self.stream(namespace)
        guard
            try await ClusterRulesVersions.publish(
                text,
                origin: origin,
                to: stream,
                directory: directory,
                nodeID: nodeID
            )
                != nil
        else {
            throw ClusterError.unavailable("other nodes kept publishing the rules of '\(namespace)' first")
        }
        remember(namespace)
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
