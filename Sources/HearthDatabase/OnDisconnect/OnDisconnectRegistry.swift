import HearthCore
import HearthStore
import Synchronization

/// Each connection's onDisconnect writes, in registration order, each with the position of its
/// stored record. Positions only grow within a connection (a cancel leaves gaps), so that a
/// registration adds one record and a cancel touches only the records it changes; the engine
/// mirrors each change into the store (see `NamespaceEngine`).
final class OnDisconnectRegistry: Sendable {
    /// One registered write and the position of its record.
    struct Entry: Sendable, Equatable {
        let position: UInt32
        var write: Write
    }

    /// What a registration did.
    enum Registration: Equatable {
        /// Added at `position`. `isFirst`: the connection had no write before (records a
        /// previous process left under the same connection id must go first).
        case added(position: UInt32, isFirst: Bool)
        /// The positions ran out, so the connection's writes were numbered again from 0 (the
        /// new one included); the whole list must be stored again. Once per 2³² registrations.
        case renumbered([Entry])
        /// The connection already has `limit` writes; nothing was added.
        case full
    }

    private struct Connection {
        var entries: [Entry] = []
        var nextPosition: UInt32 = 0

        /// Mutated in place in the table (no copy of the list per registration).
        mutating func register(_ write: Write, limit: Int, lastPosition: UInt32) -> Registration {
            guard entries.count < limit else { return .full }
            if entries.isEmpty {
                entries.append(Entry(position: 0, write: write))
                nextPosition = 1
                return .added(position: 0, isFirst: true)
            }
            if nextPosition >= lastPosition {
                entries.append(Entry(position: 0, write: write))
                for index in entries.indices {
                    entries[index] = Entry(position: UInt32(index), write: entries[index].write)
                }
                nextPosition = UInt32(entries.count)
                return .renumbered(entries)
            }
            let position = nextPosition
            entries.append(Entry(position: position, write: write))
            nextPosition = position + 1
            return .added(position: position, isFirst: false)
        }
    }

    private let table = Mutex<[ConnectionID: Connection]>([:])
    /// Positions stay below this one (`UInt32.max`; smaller in tests); then they are renumbered.
    private let lastPosition: UInt32

    init(lastPosition: UInt32 = .max) {
        self.lastPosition = lastPosition
    }

    /// Adds `write` after the connection's others, unless it has `limit` already.
    func register(_ write: Write, for connection: ConnectionID, limit: Int) -> Registration {
        table.withLock { table in
            let registration = table[connection, default: Connection()]
                .register(write, limit: limit, lastPosition: lastPosition)
            if table[connection]?.entries.isEmpty == true { table[connection] = nil }
            return registration
        }
    }

    /// Removes the write at `position` (a registration that could not be stored).
    func remove(at position: UInt32, for connection: ConnectionID) {
        table.withLock { table in
            guard var state = table[connection] else { return }
            state.entries.removeAll { $0.position == position }
            table[connection] = state.entries.isEmpty ? nil : state
        }
    }

    /// Removes the connection's operations at and below `path`: sets whose path is there, and
    /// the entries of updates whose full path is there (an update left without entries goes).
    /// Returns what changed, by position: the write that remains, or nil for one removed.
    func cancel(at path: DataPath, for connection: ConnectionID) -> [(position: UInt32, write: Write?)] {
        table.withLock { table in
            guard var state = table[connection] else { return [] }
            var changes: [(position: UInt32, write: Write?)] = []
            state.entries = state.entries.compactMap { entry in
                switch OnDisconnectRegistry.cancelling(path, in: entry.write) {
                case .unchanged:
                    return entry
                case .removed:
                    changes.append((entry.position, nil))
                    return nil
                case .trimmed(let write):
                    changes.append((entry.position, write))
                    return Entry(position: entry.position, write: write)
                }
            }
            table[connection] = state.entries.isEmpty ? nil : state
            return changes
        }
    }

    /// Takes (and forgets) the connection's operations, in registration order.
    func take(for connection: ConnectionID) -> [Entry] {
        table.withLock { $0.removeValue(forKey: connection)?.entries ?? [] }
    }

    func count(for connection: ConnectionID) -> Int {
        table.withLock { $0[connection]?.entries.count ?? 0 }
    }

    /// What cancelling at a path leaves of one write.
    enum Cancelled: Equatable {
        case unchanged
        case removed
        /// An update that keeps only these entries.
        case trimmed(Write)
    }

    /// `write` without what lies at or below `path`.
    static func cancelling(_ path: DataPath, in write: Write) -> Cancelled {
        switch write.operation {
        case .set(let target, _):
            return path.contains(target.ownerPath) ? .removed : .unchanged
        case .update(let base, let entries):
            if path.contains(base) { return .removed }
            let kept = entries.filter { !path.contains(base.appending($0.path).ownerPath) }
            if kept.isEmpty { return .removed }
            if kept.count == entries.count { return .unchanged }
            var result = write
            result.operation = .update(base, kept)
            return .trimmed(result)
        }
    }
}

extension DataPath {
    /// The path without a last `.priority` key (the node whose priority it names).
    var ownerPath: DataPath {
        isPriorityPath ? parent! : self
    }
}
