public import HearthCore

/// onDisconnect records: each connection's pending onDisconnect operations, encoded by the
/// caller, kept in a key range of the namespace outside the data tree, so that a process that
/// stops without running them (a crash, `kill -9`) leaves them for the next start.
extension NamespaceStore {
    /// One stored operation: the connection that registered it and its position in its list.
    public struct OnDisconnectRecord: Sendable, Hashable {
        public let connection: String
        public let position: UInt32

        public init(connection: String, position: UInt32) {
            self.connection = connection
            self.position = position
        }
    }

    /// Stores one operation of `connection` at `position` (one record: the cost of a
    /// registration does not grow with the connection's list); returns once it is as durable as
    /// a write.
    /// - Parameter replacingStale: first delete every record stored under `connection` (the
    ///   connection's first operation: records a previous process left under the same id go).
    public func addOnDisconnect(
        connection: String,
        position: UInt32,
        operation: [UInt8],
        replacingStale: Bool
    ) async throws {
        try await writer.perform { [self] round in
            let batch = WriteBatch()
            if replacingStale { try deleteRecords(of: connection, into: batch) }
            let key = keys.onDisconnectKey(connection: connection, position: position)
            batch.put(key, operation)
            try commitOnDisconnect(batch, bytes: key.count + operation.count, in: round)
        }
    }

    /// Rewrites (`operation` set) or deletes (nil) some stored operations of `connection`, in
    /// one batch: what a cancel changed, and nothing else.
    public func changeOnDisconnect(
        connection: String,
        changes: [(position: UInt32, operation: [UInt8]?)]
    ) async throws {
        guard !changes.isEmpty else { return }
        try await writer.perform { [self] round in
            let batch = WriteBatch()
            var bytes = 0
            for (position, operation) in changes {
                let key = keys.onDisconnectKey(connection: connection, position: position)
                if let operation {
                    batch.put(key, operation)
                    bytes += key.count + operation.count
                } else {
                    batch.delete(key)
                    bytes += key.count
                }
            }
            try commitOnDisconnect(batch, bytes: bytes, in: round)
        }
    }

    /// Replaces the stored operations of `connection` with `operations`, at their positions;
    /// returns once they are as durable as a write.
    public func saveOnDisconnect(
        connection: String,
        operations: [(position: UInt32, operation: [UInt8])]
    ) async throws {
        try await writer.perform { [self] round in
            let batch = WriteBatch()
            try deleteRecords(of: connection, into: batch)
            var bytes = 0
            for (position, operation) in operations {
                let key = keys.onDisconnectKey(connection: connection, position: position)
                batch.put(key, operation)
                bytes += key.count + operation.count
            }
            if batch.count > 0 { try commitOnDisconnect(batch, bytes: bytes, in: round) }
        }
    }

    /// The bytes of keys and values the onDisconnect records of this namespace have been
    /// written with since it was opened (registrations, cancels and rewrites; not the deletes
    /// of runs). For metrics and for tests that check a registration's cost stays flat.
    public var onDisconnectBytesWritten: Int { onDisconnectBytes.load(ordering: .relaxed) }

    private func deleteRecords(of connection: String, into batch: WriteBatch) throws {
        try readNow { reader in
            reader.scan(keys.onDisconnectPrefix(connection: connection)) { key, _ in batch.delete(Array(key)) }
        }
    }

    private func commitOnDisconnect(_ batch: WriteBatch, bytes: Int, in round: WriteRound) throws {
        try round.commitUnsequenced(batch)
        onDisconnectBytes.add(bytes, ordering: .relaxed)
    }

    /// Every stored operation, by connection, in position order.
    public func loadOnDisconnect() throws -> [(connection: String, operations: [(position: UInt32, bytes: [UInt8])])] {
        var result: [(connection: String, operations: [(position: UInt32, bytes: [UInt8])])] = []
        try readNow { reader in
            reader.scan(keys.onDisconnectPrefix) { key, value in
                guard let (connection, position) = keys.onDisconnectRecord(key) else { return }
                if result.last?.connection != connection { result.append((connection, [])) }
                result[result.count - 1].operations.append((position, Array(value)))
            }
        }
        return result
    }

    /// True when some operation is stored (one seek).
    public func hasOnDisconnectRecords() throws -> Bool {
        try readNow { reader in
            let cursor = reader.snapshot.makeIterator()
            cursor.seek(keys.onDisconnectPrefix)
            return cursor.hasPrefix(keys.onDisconnectPrefix)
        }
    }

    /// Applies `write` and deletes `record` in the same batch (so it runs once).
    public func write(_ write: Write, consuming record: OnDisconnectRecord) async throws -> WriteResult {
        let key = keys.onDisconnectKey(connection: record.connection, position: record.position)
        return try await withCheckedThrowingContinuation { continuation in
            self.write(write, authorize: nil, consuming: key) { continuation.resume(with: $0) }
        }
    }

    /// Deletes one record (of an operation that failed).
    public func deleteOnDisconnect(_ record: OnDisconnectRecord) async throws {
        try await writer.perform { [self] round in
            let batch = WriteBatch()
            batch.delete(keys.onDisconnectKey(connection: record.connection, position: record.position))
            try round.commitUnsequenced(batch)
        }
    }
}
