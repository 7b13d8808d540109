import Foundation
import HearthCore
import NIOCore

/// `hearth export` and `hearth import` of a running server's database, through its REST API
/// (the admin credential): the same JSON, streamed, as from a stopped data directory.
enum RemoteTransfer {
    /// The REST URL path of `path` in namespace `ns` (each key percent-encoded).
    static func target(_ path: DataPath, ns: String, query: [String] = []) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        let segments = path.keys.map { $0.string.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.string }
        var queryAllowed = CharacterSet.urlQueryAllowed
        queryAllowed.remove(charactersIn: "&=+#")
        let items = ["ns=" + (ns.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? ns)] + query
        return "/" + segments.joined(separator: "/") + ".json?" + items.joined(separator: "&")
    }

    static func export(
        _ path: DataPath,
        ns: String,
        format: RenderFormat,
        from server: RunningServerAddress,
        into sink: OutputSink,
        progress: ProgressBar
    ) async throws {
        let counter = ByteCounter()
        let query = format == .export ? ["format=export"] : []
        try await ServerRequest(server: server, method: .GET, target: target(path, ns: ns, query: query)).send {
            buffer in
            try sink.write(Array(buffer.readableBytesView))
            progress.update(counter.add(buffer.readableBytes))
        }
    }

    static func importJSON(
        from reader: FileChunkReader,
        at path: DataPath,
        ns: String,
        into server: RunningServerAddress,
        progress: ProgressBar
    ) async throws {
        let counter = ByteCounter()
        var request = ServerRequest(server: server, method: .PUT, target: target(path, ns: ns, query: ["print=silent"]))
        request.upload = (
            reader.totalBytes,
            {
                let chunk = try reader.next()
                if let chunk { progress.update(counter.add(chunk.count)) }
                return chunk
            }
        )
        try await request.send { _ in }
    }
}
