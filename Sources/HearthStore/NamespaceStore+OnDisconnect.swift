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

    /// Replaces the stored operations of `connection` with `operations` (positions 0, 1, …);
    /// returns once they are as durable as a write.
    public func saveOnDisconnect(connection: String, operations: [[UInt8]]) async throws {
        try await writer.perform { [self] in
            let batch = WriteBatch()
            try readNow { reader in
                reader.scan(keys.onDisconnectPrefix(connection: connection)) { key, _ in batch.delete(Array(key)) }
            }
            for (position, operation) in operations.enumerated() {
                batch.put(keys.onDisconnectKey(connection: connection, position: UInt32(position)), operation)
            }
            if batch.count > 0 { try writer.commitUnsequenced(batch) }
        }
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
        try await writer.perform { [self] in
            let batch = WriteBatch()
            batch.delete(keys.onDisconnectKey(connection: record.connection, position: record.position))
            try writer.commitUnsequenced(batch)
        }
    }
}
