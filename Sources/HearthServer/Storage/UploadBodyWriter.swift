import HearthStorage
import Hummingbird
import NIOCore

/// Streams an upload's request body to disk in batches: the buffers NIO reads (up to 64 KiB
/// each) are gathered until `batchBytes`, then written and checksummed in one hop to the storage
/// queue. One hop a buffer cost a 1 GiB upload 16,000 task switches; a batch holds at most
/// `batchBytes` plus one buffer of the body in memory.
enum UploadBodyWriter {
    static let batchBytes = 1 << 20

    /// Hands every byte of `request`'s body, in order, to `write` on the storage queue.
    static func write(
        _ request: Request,
        to write: @escaping @Sendable (UnsafeRawBufferPointer) throws(StorageError) -> Void
    ) async throws {
        var batch: [ByteBuffer] = []
        var batched = 0
        do {
            for try await buffer in request.body {
                batch.append(buffer)
                batched += buffer.readableBytes
                guard batched >= batchBytes else { continue }
                let full = batch
                (batch, batched) = ([], 0)
                try await flush(full, to: write)
            }
        } catch {
            // The body broke off (a dropped or stalled connection): what arrived is still written,
            // so a resumable upload's `query` tells the offset to go on from.
            if !batch.isEmpty { try? await flush(batch, to: write) }
            throw error
        }
        if !batch.isEmpty { try await flush(batch, to: write) }
    }

    private static func flush(
        _ batch: [ByteBuffer],
        to write: @escaping @Sendable (UnsafeRawBufferPointer) throws(StorageError) -> Void
    ) async throws {
        try await StorageEndpoint.run {
            for buffer in batch {
                try buffer.withUnsafeReadableBytes { bytes in try write(bytes) }
            }
        }
    }
}
