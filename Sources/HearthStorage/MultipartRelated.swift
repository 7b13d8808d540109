import Foundation

/// A streaming reader of the `multipart/related` body the Firebase SDKs upload with
/// (`X-Goog-Upload-Protocol: multipart`): a JSON part with the object's metadata, then a part
/// with its bytes. The bytes are handed on as they arrive, never held whole; only the JSON part
/// and part headers are kept, each within a bound.
///
///     --B\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{...}\r\n--B\r\n
///     Content-Type: image/jpeg\r\n\r\n<bytes>\r\n--B--
public struct MultipartRelated {
    /// What `feed` found.
    public enum Event: Equatable {
        /// The metadata part's bytes (JSON), once whole.
        case metadata([UInt8])
        /// The media part's `Content-Type` (the object's when the metadata names none).
        case mediaType(String)
        /// The next bytes of the object.
        case media([UInt8])
        /// The closing boundary: the body is complete.
        case end
    }

    /// The most bytes the metadata part, or one part's headers, may take.
    public static let maxMetadataBytes = 64 * 1024

    private enum State {
        case preamble, metadataHeaders, metadata, afterMetadata, mediaHeaders, media, closing, done
    }

    private let opening: [UInt8]
    private let delimiter: [UInt8]
    private let maxPartBytes: Int
    private var state = State.preamble
    private var pending: [UInt8] = []

    /// The boundary from a `multipart/related; boundary=X` content type, or nil.
    public static func boundary(fromContentType contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = parts.first, type.lowercased() == "multipart/related" else { return nil }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty || value.utf8.count > 70 ? nil : value
        }
        return nil
    }

    /// - Parameter maxPartBytes: the most bytes the metadata part, or one part's headers, may
    ///   take (`maxMetadataBytes`; the fuzz target makes it small to reach it).
    public init(boundary: String, maxPartBytes: Int = Self.maxMetadataBytes) {
        opening = Array("--\(boundary)".utf8)
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.maxPartBytes = maxPartBytes
    }

    /// The bytes held between feeds (a part's headers, the metadata, what may start a delimiter):
    /// at most `maxPartBytes` and a boundary, whatever the body.
    var buffered: Int { pending.count }

    /// Whether the closing boundary was read.
    public var isComplete: Bool { state == .done }

    /// Reads the next bytes of the body.
    /// - Throws: `StorageError` `.invalidMetadata` for a body that is not two parts as above, or a
    ///   metadata part or headers past `maxPartBytes`.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(StorageError) -> [Event] {
        var events: [Event] = []
        pending.append(contentsOf: bytes)
        while true {
            switch state {
            case .preamble:
                guard let end = try find(opening + [0x0D, 0x0A], after: "the body's first boundary") else {
                    return events
                }
                // The boundary line's CRLF stays: it starts the CRLF CRLF that ends the headers,
                // so a part without headers ("--B\r\n\r\n...") has empty ones, not the next lines.
                pending.removeFirst(end + opening.count)
                state = .metadataHeaders
            case .metadataHeaders, .mediaHeaders:
                guard let end = try find([0x0D, 0x0A, 0x0D, 0x0A], after: "a part's headers") else { return events }
                let headers = String(decoding: pending[2..<max(end, 2)], as: UTF8.self)
                guard let type = Self.contentType(in: headers) else {
                    throw StorageError(
                        .invalidMetadata,
                        "Bad content type: each part of a multipart upload needs a Content-Type header."
                    )
                }
                if state == .mediaHeaders { events.append(.mediaType(type)) }
                pending.removeFirst(end + 4)
                state = state == .metadataHeaders ? .metadata : .media
            case .metadata:
                guard let end = try find(delimiter, after: "the metadata part") else { return events }
                events.append(.metadata(Array(pending[..<end])))
                pending.removeFirst(end + delimiter.count)
                state = .afterMetadata
            case .afterMetadata:
                guard pending.count >= 2 else { return events }
                guard pending.starts(with: [0x0D, 0x0A]) else {
                    throw StorageError(
                        .invalidMetadata,
                        "A multipart upload needs its file in a second part after the metadata."
                    )
                }
                state = .mediaHeaders
            case .media:
                if let end = Self.find(delimiter, in: pending) {
                    if end > 0 { events.append(.media(Array(pending[..<end]))) }
                    pending.removeFirst(end + delimiter.count)
                    state = .closing
                    continue
                }
                // Keep what could be the start of the delimiter; hand on the rest.
                let safe = pending.count - (delimiter.count - 1)
                if safe > 0 {
                    events.append(.media(Array(pending[..<safe])))
                    pending.removeFirst(safe)
                }
                return events
            case .closing:
                guard pending.count >= 2 else { return events }
                guard pending.starts(with: [0x2D, 0x2D]) else {
                    throw StorageError(
                        .invalidMetadata,
                        "A multipart upload takes two parts: its metadata, then its file."
                    )
                }
                pending.removeAll()
                state = .done
                events.append(.end)
                return events
            case .done:
                pending.removeAll()
                return events
            }
        }
    }

    /// `feed(_:)` of an array.
    public mutating func feed(_ bytes: [UInt8]) throws(StorageError) -> [Event] {
        try bytes.withStorageBytes { bytes throws(StorageError) in try feed(bytes) }
    }

    /// Where `needle` starts in what is held, nil while it may still come. `what`, the bytes
    /// before it, is refused once longer than `maxPartBytes`: as soon as no needle can end it
    /// within the bound, so however the body is cut into reads, the same bodies are refused.
    private func find(_ needle: [UInt8], after what: String) throws(StorageError) -> Int? {
        let end = Self.find(needle, in: pending)
        guard (end ?? (pending.count - needle.count + 1)) <= maxPartBytes else {
            throw StorageError(
                .invalidMetadata,
                "The multipart upload's \(what) is missing or longer than \(maxPartBytes) bytes."
            )
        }
        return end
    }

    /// The value of a part's `Content-Type` header.
    private static func contentType(in headers: String) -> String? {
        for line in headers.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == "content-type" else { continue }
            return pair[1].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count, let first = needle.first else { return nil }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
