import HearthCore
import HearthDatabase
import Logging

/// At start, before serving: every `presence/$uid` not `offline` (left `online` by a server
/// that stopped, cleanly or not, even by `kill -9`) becomes `offline`, with `lastChanged` this
/// start's time. No connection exists yet, so nobody is online. Namespaces that do not exist
/// are not created.
enum PresenceSweep {
    /// Children of `presence` read per page (and written per commit).
    static let pageSize = 1_000

    /// Sweeps each of `namespaces`; returns how many entries became `offline`.
    /// - Throws: `StoreError` when a namespace cannot be read or written (the server must not
    ///   start with presence it cannot trust).
    static func run(database: Database, namespaces: Set<String>, logger: Logger) async throws -> Int {
        var total = 0
        for namespace in namespaces.sorted() where database.isCreated(namespace) {
            let engine = try await database.engine(for: namespace)
            var after: ChildKey?
            while true {
                let start = after
                let (stale, last) = try await engine.readAsServer { snapshot in
                    page(of: snapshot, after: start)
                }
                try await PresenceWriter.writeOffline(stale, in: engine)
                total += stale.count
                guard let last else { break }
                after = last
            }
        }
        if total > 0 { logger.info("presence swept at start", metadata: ["hearth.presence.offline": "\(total)"]) }
        return total
    }

    /// The uids of one page whose entry is not `{state: "offline", ...}`, and the page's last
    /// key (nil: it was the last page).
    static func page(of snapshot: NamespaceSnapshot, after: ChildKey?) -> (stale: [String], last: ChildKey?) {
        guard
            case .children(let children) = snapshot.shallow(
                at: PresenceWriter.location,
                startAfter: after,
                limit: pageSize
            )
        else { return ([], nil) }
        var stale: [String] = []
        for child in children {
            let state = snapshot.node(at: PresenceWriter.location.child(child.key).child(ChildKey("state")))
            if state != .leaf(.string("offline"), priority: nil) { stale.append(child.key.string) }
        }
        return (stale, children.count < pageSize ? nil : children.last?.key)
    }
}
