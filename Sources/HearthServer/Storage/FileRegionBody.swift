import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Sends a download's bytes with `sendfile` (NIO's `FileRegion`) on a plain HTTP connection: the
/// kernel copies from the page cache to the socket, no byte passes through the server's memory.
///
/// Hummingbird's body writer takes only `ByteBuffer`s, so the region is written just below
/// `HTTP1ToHTTPServerCodec` (where the parts are NIOHTTP1's, whose body may be a file region), in
/// between the head and the end Hummingbird writes through the same channel. Its event loop runs
/// writes in the order they were queued, and the head is queued before the body closure runs;
/// the end is queued only once this write has completed. Not under TLS: NIOSSL cannot encrypt
/// a file region (`StorageDownload` reads chunks there).
struct FileRegionBody {
    let channel: any Channel

    /// Writes bytes `range` of `file` and flushes; returns once the socket took the last byte.
    /// Throws when the connection closes first (the caller then closes `file`).
    func send(_ file: NIOFileHandle, range: Range<UInt64>) async throws {
        let region = FileRegion(fileHandle: file, readerIndex: Int(range.lowerBound), endIndex: Int(range.upperBound))
        let channel = self.channel
        try await channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            do {
                let codec = try channel.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
                let written = channel.eventLoop.makePromise(of: Void.self)
                codec.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))), promise: written)
                return written.futureResult
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }.get()
    }
}
