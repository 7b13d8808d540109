public import HearthCore
import HearthStore
import Synchronization

extension NamespaceEngine {
    /// Reads the value at `path` as JSON chunks of about `chunkSize` bytes, from one snapshot
    /// judged by the rules in it: returns once the read is allowed, before the value is
    /// rendered, so a large value's first bytes can be sent while the rest is rendered.
    ///
    /// The rendering runs on the store's read pool and never waits for the consumer: the
    /// chunks not yet taken are held (at most the whole value, as a rendered read holds it),
    /// and the read pool's thread is free once the value is rendered, however slowly it is
    /// taken. Rendering stops when the consumer ends the stream.
    /// - Throws: `StoreError.permissionDenied` when the rules refuse `caller` the read.
    public func readChunks(
        at path: DataPath,
        format: RenderFormat,
        chunkSize: Int,
        as caller: Caller
    ) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        let (chunks, sink) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let held = HeldChunks(sink)
        let (rules, activity, store) = (self.rules, self.activity, self.store)
        try await withCheckedThrowingContinuation { (judged: CheckedContinuation<Void, any Error>) in
            // Set by whichever answers the judgement first: the read's commit, or its failure.
            let judgedOnce = Atomic<Bool>(false)
            @Sendable func claimJudgement() -> Bool {
                judgedOnce.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
            }
            Task {
                do {
                    try await store.read { reader in
                        guard rules.canRead(caller, path: path, query: nil, reader: reader) else {
                            activity.refused(.read)
                            throw StoreError.permissionDenied
                        }
                        // Answered once what the snapshot holds is committed (at once on a
                        // single server); a refused append fails the read instead (the store's
                        // read throws it).
                        store.whenCommitted(reader) { error in
                            guard error == nil, claimJudgement() else { return }
                            judged.resume()
                            held.open()
                        }
                        try reader.streamJSON(at: path, format: format, chunkSize: chunkSize) { chunk in
                            if held.yield(chunk) { throw CancellationError() }
                        }
                    }
                    held.end(.success(()))
                } catch {
                    if claimJudgement() {
                        judged.resume(throwing: error)
                    } else {
                        held.end(.failure(error))
                    }
                }
            }
        }
        return chunks
    }
}
