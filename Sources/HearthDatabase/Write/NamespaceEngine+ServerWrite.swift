public import HearthCore
import HearthStore
import Synchronization

extension NamespaceEngine {
    /// Reads as the server itself (no rules): `body` sees one consistent snapshot.
    /// - Throws: `StoreError` when the store cannot be read; what `body` throws.
    public func readAsServer<T: Sendable>(_ body: @escaping @Sendable (NamespaceSnapshot) throws -> T) async throws -> T
    {
        try await store.read { reader in try body(NamespaceSnapshot(reader: reader, reads: nil)) }
    }

    /// Milliseconds since 1970 by the server's clock: what `{".sv": "timestamp"}` resolves to
    /// in a write committed now.
    public func serverTime() -> Double {
        rules.now()
    }

    /// Writes as the server itself (author `.system`, no rules), like any write: through the
    /// namespace's serial writer, with its triggers, announced to every listener as one commit.
    /// When `precondition` is given it is judged on the writer against the state the write
    /// applies to (nothing commits in between), so a create-if-absent cannot race; the snapshot
    /// notes what it reads (writes staged in the same round are then checked against it).
    /// - Returns: the result, or nil when `precondition` was false (nothing written).
    /// - Throws: `StoreError` or `CoreError` for a write the store refuses.
    public func writeAsServer(
        _ write: Write,
        precondition: (@Sendable (NamespaceSnapshot) -> Bool)? = nil
    ) async throws -> WriteResult? {
        var write = write
        write.author = .system
        guard let precondition else { return try await store.write(write) }
        let refused = Atomic<Bool>(false)
        do {
            return try await store.write(
                write,
                authorize: { proposal in
                    let holds = precondition(NamespaceSnapshot(reader: proposal.reader, reads: proposal.reads))
                    proposal.reads?.isComplete = true
                    // A later attempt of the same write (after staged writes were applied) decides.
                    refused.store(!holds, ordering: .relaxed)
                    return holds
                }
            )
        } catch let error as StoreError where error.code == .permissionDenied && refused.load(ordering: .relaxed) {
            return nil
        }
    }
}

extension NamespaceEngine {
    /// `readAsServer` on the calling thread, for work that runs on a thread of its own and must
    /// not suspend (a queue's worker). Never call it from a serving event loop.
    public func readAsServerSynchronously<T>(_ body: (NamespaceSnapshot) throws -> T) throws -> T {
        try store.readSynchronously { reader in try body(NamespaceSnapshot(reader: reader, reads: nil)) }
    }
}
