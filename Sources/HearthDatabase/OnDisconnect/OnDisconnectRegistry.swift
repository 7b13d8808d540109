import HearthCore
import HearthStore
import Synchronization

/// Each connection's onDisconnect writes, in registration order. The engine mirrors every
/// change into the store's onDisconnect records (see `NamespaceEngine`), so that writes of a
/// process that stops without running them are run at the next start.
final class OnDisconnectRegistry: Sendable {
    private let writes = Mutex<[ConnectionID: [Write]]>([:])

    /// Adds `write`; returns the connection's list.
    func register(_ write: Write, for connection: ConnectionID) -> [Write] {
        writes.withLock { table in
            table[connection, default: []].append(write)
            return table[connection]!
        }
    }

    /// Removes the last write of the connection (a registration that could not be stored);
    /// returns the connection's list.
    func removeLast(for connection: ConnectionID) -> [Write] {
        writes.withLock { table in
            guard var list = table[connection], !list.isEmpty else { return [] }
            list.removeLast()
            table[connection] = list.isEmpty ? nil : list
            return list
        }
    }

    /// Removes the connection's operations at and below `path`: sets whose path is there, and
    /// the entries of updates whose full path is there (an update left without entries goes).
    /// Returns the connection's list.
    func cancel(at path: DataPath, for connection: ConnectionID) -> [Write] {
        writes.withLock { table in
            guard var list = table[connection] else { return [] }
            list = list.compactMap { OnDisconnectRegistry.cancelling(path, in: $0) }
            table[connection] = list.isEmpty ? nil : list
            return list
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
