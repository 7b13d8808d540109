import Foundation
import HTTPTypes
import HearthStorage
import Hummingbird
import Logging
import NIOCore

/// Cloud Storage's decompressive transcoding ("Transcoding of gzip-compressed files"): an object
/// stored with `contentEncoding: gzip` goes to a client that does not accept gzip decompressed,
/// without `Content-Encoding` and without a length (chunked), whole whatever `Range` asks (200);
/// a client that accepts gzip, or an object whose `Cache-Control` says `no-transform`, gets the
/// bytes as stored. `x-goog-stored-content-encoding` and `-length` say what is stored, and a
/// `Warning: 214 UploadServer gunzipped` that the body was changed, as Cloud Storage sends them.
///
/// The file is read and inflated a chunk at a time on the storage queue (at most 256 KiB in and
/// 256 KiB out held at once, however far the bytes expand). The first chunk is inflated before
/// the answer starts, so an object whose bytes are not gzip gets an error (500); one corrupt or
/// cut short further on ends its body early (the connection closed before the chunked body's
/// end, so the client sees it incomplete) and is logged.
extension StorageDownload {
    /// Whether `object` goes out decompressed to a request with these `Accept-Encoding` fields.
    static func transcodes(_ object: ObjectMetadata, acceptEncoding: [String]) -> Bool {
        guard object.contentEncoding?.trimmingCharacters(in: .whitespaces).lowercased() == "gzip" else {
            return false
        }
        if let cacheControl = object.cacheControl?.lowercased(), cacheControl.contains("no-transform") {
            return false
        }
        return !acceptsGzip(acceptEncoding)
    }

    /// Whether `Accept-Encoding` (each field's comma-separated codings with their `q`) accepts
    /// gzip: `gzip` or `x-gzip` with a weight above 0, else `*` with one.
    static func acceptsGzip(_ fields: [String]) -> Bool {
        var gzip: Double?
        var any: Double?
        for field in fields {
            for coding in field.split(separator: ",") {
                let parts = coding.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard let name = parts.first, !name.isEmpty else { continue }
                var weight = 1.0
                for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                    weight = Double(parameter.dropFirst(2)) ?? 0
                }
                switch name {
                case "gzip", "x-gzip": gzip = max(gzip ?? 0, weight)
                case "*": any = max(any ?? 0, weight)
                default: break
                }
            }
        }
        return (gzip ?? any ?? 0) > 0
    }

    func decompressedResponse(to request: Request) async -> Response {
        var headers = storedHeaders
        headers[Self.warning] = "214 UploadServer gunzipped"
        // An empty object has nothing to decompress; HEAD needs no bytes.
        guard request.method != .head, object.size > 0 else {
            return Response(
                status: .ok,
                headers: headers,
                body: ResponseBody { writer in try await writer.finish(nil) }
            )
        }
        guard let opened = OpenObjectFile(path: path) else {
            return StorageAnswer.error(404, "The object '\(object.name)' is gone.")
        }
        let file = FileHandle(fileDescriptor: opened.take(), closeOnDealloc: true)
        let reader: GzipFileReader
        let first: [UInt8]?
        do {
            reader = try GzipFileReader(file: file)
            first = try await StorageEndpoint.run { try reader.next() }
        } catch {
            logger.error(
                "a gzip object's bytes are not gzip; not decompressed",
                metadata: ["hearth.object": "\(object.bucket)/\(object.name)", "hearth.error": "\(error)"]
            )
            return StorageAnswer.error(
                500,
                "The object is stored with contentEncoding gzip but its bytes are not gzip: "
                    + "download them as stored with 'Accept-Encoding: gzip'."
            )
        }
        let (logger, object) = (self.logger, self.object)
        let body = ResponseBody { writer in
            defer { reader.close() }
            var piece = first
            do {
                while let bytes = piece {
                    try await writer.write(ByteBuffer(bytes: bytes))
                    piece = try await StorageEndpoint.run { try reader.next() }
                }
            } catch let error as GzipInflater.Failure {
                logger.error(
                    "a gzip object's download was cut short: its bytes are corrupt",
                    metadata: ["hearth.object": "\(object.bucket)/\(object.name)", "hearth.error": "\(error)"]
                )
                throw error
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    static let warning = HTTPField.Name("Warning")!
}

/// An object's file read and inflated a chunk at a time; used by one download's body, one call
/// at a time (on the storage queue).
final class GzipFileReader: @unchecked Sendable {
    private let file: FileHandle
    private let inflater: GzipInflater
    private var ended = false

    /// - Throws: `GzipInflater.Failure` when zlib cannot start.
    init(file: FileHandle) throws {
        self.file = file
        inflater = try GzipInflater()
    }

    /// The next decompressed piece (at most `StorageDownload.chunkBytes`), nil at the end.
    /// - Throws: `GzipInflater.Failure` for bytes that are not gzip, corrupt or cut short; the
    ///   file's read error.
    func next() throws -> [UInt8]? {
        while !ended {
            if inflater.needsInput {
                let data = try file.read(upToCount: StorageDownload.chunkBytes) ?? Data()
                if data.isEmpty {
                    ended = true
                    try inflater.finish()
                    return nil
                }
                inflater.feed(Array(data))
            }
            let bytes = try inflater.read(upTo: StorageDownload.chunkBytes)
            if !bytes.isEmpty { return bytes }
        }
        return nil
    }

    func close() {
        try? file.close()
    }
}
