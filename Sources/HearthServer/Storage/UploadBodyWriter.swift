import HearthStorage
import Hummingbird
import NIOCore

/// Streams an upload's request body to disk in batches: the buffers NIO reads (up to 64 KiB
/// each) are gathered until `batchBytes`, then written and checksummed in one hop to the storage
/// queue. One hop a buffer cost a 1 GiB upload 16,000 task switches. One batch is written while
/// the next is read, so at most two batches (2 × `batchBytes` plus one buffer) are in memory.
enum UploadBodyWriter {
    static let batchBytes = 1 << 20

    /// Hands every byte of `request`'s body, in order, to `write` on the storage queue, a batch
    /// of pieces at a time.
    static func write(
        _ request: Request,
        to write: @escaping @Sendable ([UnsafeRawBufferPointer]) throws(StorageError) -> Void
    ) async throws {
        var batch: [ByteBuffer] = []
        var batched = 0
        // One batch is written while the next one is read: the socket, MD5 and the disk overlap.
        var writing: Task<Void, any Error>?
        do {
            for try await buffer in request.body {
                batch.append(buffer)
                batched += buffer.readableBytes
                guard batched >= batchBytes else { continue }
                let full = batch
                (batch, batched) = ([], 0)
                try await writing?.value
                writing = Task { try await flush(full, to: write) }
            }
            try await writing?.value
        } catch {
            // The body broke off (a dropped or stalled connection): what arrived is still written,
            // so a resumable upload's `query` tells the offset to go on from.
            var written = true
            if let writing { written = (try? await writing.value) != nil }
            if written, !batch.isEmpty { try? await flush(batch, to: write) }
            throw error
        }
        if !batch.isEmpty { try await flush(batch, to: write) }
    }

    private static func flush(
        _ batch: [ByteBuffer],
        to write: @escaping @Sendable ([UnsafeRawBufferPointer]) throws(StorageError) -> Void
    ) async throws {
        try await StorageEndpoint.run {
            try withPieces(batch[...], []) { pieces throws(StorageError) in try write(pieces) }
        }
    }

    /// `body` with every buffer's readable bytes at once (each valid until `body` returns).
    private static func withPieces(
        _ buffers: ArraySlice<ByteBuffer>,
        _ pieces: [UnsafeRawBufferPointer],
        _ body: ([UnsafeRawBufferPointer]) throws(StorageError) -> Void
    ) throws(StorageError) {
        guard let first = buffers.first else { return try body(pieces) }
        let result: Result<Void, StorageError> = first.withUnsafeReadableBytes { bytes in
            Result { () throws(StorageError) in try withPieces(buffers.dropFirst(), pieces + [bytes], body) }
        }
        try result.get()
    }
}
