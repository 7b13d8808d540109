import HearthCore
import HearthStore
import Synchronization

/// Each connection's onDisconnect writes, in registration order. Kept in memory: they are lost
/// when the process stops (see docs/realtime.md).
final class OnDisconnectRegistry: Sendable {
    private let writes = Mutex<[ConnectionID: [Write]]>([:])

    func register(_ write: Write, for connection: ConnectionID) {
        writes.withLock { $0[connection, default: []].append(write) }
    }

    /// Removes the connection's operations at and below `path`: sets whose path is there, and
    /// the entries of updates whose full path is there (an update left without entries goes).
    func cancel(at path: DataPath, for connection: ConnectionID) {
        writes.withLock { table in
            guard var list = table[connection] else { return }
            list = list.compactMap { OnDisconnectRegistry.cancelling(path, in: $0) }
            table[connection] = list.isEmpty ? nil : list
        }
    }

    /// Takes (and forgets) the connection's operations.
    func take(for connection: ConnectionID) -> [Write] {
        writes.withLock { $0.removeValue(forKey: connection) ?? [] }
    }

    func count(for connection: ConnectionID) -> Int {
        writes.withLock { $0[connection]?.count ?? 0 }
    }

    /// `write` without what lies at or below `path`, or nil when nothing is left.
    static func cancelling(_ path: DataPath, in write: Write) -> Write? {
        switch write.operation {
        case .set(let target, _):
            return path.contains(target.ownerPath) ? nil : write
        case .update(let base, let entries):
            if path.contains(base) { return nil }
            let kept = entries.filter { !path.contains(base.appending($0.path).ownerPath) }
            if kept.isEmpty { return nil }
            var result = write
            result.operation = .update(base, kept)
            return result
        }
    }
}

extension DataPath {
    /// The path without a last `.priority` key (the node whose priority it names).
    var ownerPath: DataPath {
        last?.string == ".priority" ? parent! : self
    }

    var isPriorityPath: Bool { last?.string == ".priority" }
}
