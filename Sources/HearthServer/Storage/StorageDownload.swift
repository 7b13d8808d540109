import Foundation
import HTTPTypes
import HearthStorage
import Hummingbird
import Logging
import NIOCore

/// An object's bytes (`?alt=media`): the whole file (200) or one `Range: bytes=a-b` of it (206,
/// with `Content-Range`; 416 when it starts past the end). On plain HTTP the kernel sends them
/// from the file (`sendfile`, `FileRegionBody`); under TLS they are read in chunks on the storage
/// queue. The file is opened before the answer starts, so a replacement or delete meanwhile does
/// not cut the download short; it is closed when the body is sent or the connection ends.
///
/// An object stored with `contentEncoding: gzip` is sent as it is stored, with `Content-Encoding:
/// gzip`, to a client that accepts gzip; to one that does not it is decompressed on the way
/// (Cloud Storage's decompressive transcoding, `StorageDownload+Gzip`).
struct StorageDownload {
    let object: ObjectMetadata
    let path: String
    /// The plain HTTP connection to `sendfile` the bytes to; nil: chunks (TLS).
    let fileRegions: FileRegionBody?
    /// Where a decompression that fails midway is told (the client sees its body cut short).
    let logger: Logger

    static let chunkBytes = 256 * 1024
    static let goog = (
        generation: HTTPField.Name("x-goog-generation")!,
        metageneration: HTTPField.Name("x-goog-metageneration")!,
        hash: HTTPField.Name("x-goog-hash")!,
        storedEncoding: HTTPField.Name("x-goog-stored-content-encoding")!,
        storedLength: HTTPField.Name("x-goog-stored-content-length")!
    )

    func response(to request: Request) async -> Response {
        if Self.transcodes(object, acceptEncoding: request.headers[values: .acceptEncoding]) {
            return await decompressedResponse(to: request)
        }
        let size = object.size
        var headers = storedHeaders
        if let encoding = object.contentEncoding { headers[.contentEncoding] = encoding }
        headers[.acceptRanges] = "bytes"
        var status = HTTPResponse.Status.ok
        var range: Range<UInt64> = 0..<size
        switch request.headers[.range].map({ Self.parseRange($0, size: size) }) {
        case .some(.unsatisfiable):
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .some(.range(let wanted)):
            status = .partialContent
            range = wanted
            headers[.contentRange] = "bytes \(wanted.lowerBound)-\(wanted.upperBound - 1)/\(size)"
        case .some(.ignored), .none:
            break
        }
        headers[.contentLength] = String(range.count)
        guard request.method != .head, !range.isEmpty else { return Response(status: status, headers: headers) }
        guard let opened = OpenObjectFile(path: path) else {
            return StorageAnswer.error(404, "The object '\(object.name)' is gone.")
        }
        if let fileRegions {
            let sent = range
            let body = ResponseBody { writer in
                let file = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: opened.take())
                defer { try? file.close() }
                try await fileRegions.send(file, range: sent)
                try await writer.finish(nil)
            }
            return Response(status: status, headers: headers, body: body)
        }
        let (start, length) = (range.lowerBound, range.upperBound - range.lowerBound)
        let body = ResponseBody { writer in
            let file = FileHandle(fileDescriptor: opened.take(), closeOnDealloc: true)
            defer { try? file.close() }
            try await StorageEndpoint.run { try file.seek(toOffset: start) }
            var left = length
            while left > 0 {
                let count = Int(min(UInt64(Self.chunkBytes), left))
                let data = try await StorageEndpoint.run { try file.read(upToCount: count) ?? Data() }
                guard !data.isEmpty else { break }
                try await writer.write(ByteBuffer(bytes: data))
                left -= UInt64(data.count)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// The headers of every answer with the object's bytes, whole, ranged or decompressed.
    var storedHeaders: HTTPFields {
        [
            .contentType: object.contentType ?? "application/octet-stream",
            .eTag: object.firebaseResource.etag,
            .cacheControl: object.cacheControl ?? "private, max-age=0",
            .contentDisposition: object.contentDisposition ?? "inline",
            Self.goog.generation: object.generation,
            Self.goog.metageneration: String(object.metageneration),
            Self.goog.hash: "crc32c=\(object.crc32c),md5=\(object.md5Hash)",
            Self.goog.storedEncoding: object.contentEncoding ?? "identity",
            Self.goog.storedLength: String(object.size),
        ]
    }

    enum RangeRequest: Equatable {
        case range(Range<UInt64>)
        /// Starts at or past the end: 416.
        case unsatisfiable
        /// Not one byte range this answers (several ranges, another unit): the whole object.
        case ignored
    }

    /// `bytes=a-b`, `bytes=a-` or `bytes=-n` (the last n bytes) of an object of `size` bytes.
    static func parseRange(_ header: String, size: UInt64) -> RangeRequest {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return .ignored }
        let spec = header.dropFirst("bytes=".count).split(
            separator: "-",
            maxSplits: 1,
            omittingEmptySubsequences: false
        )
        guard spec.count == 2 else { return .ignored }
        let first = spec[0].trimmingCharacters(in: .whitespaces)
        let last = spec[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = UInt64(last) else { return .ignored }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .range((size - min(suffix, size))..<size)
        }
        guard let start = UInt64(first) else { return .ignored }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .range(start..<size) }
        guard let end = UInt64(last), end >= start else { return .ignored }
        return .range(start..<(min(end, size - 1) + 1))
    }
}
