import HearthStorage
import Testing

/// The SDKs' multipart upload body read as it streams: the same metadata and bytes whatever the
/// chunking, bytes that look like a boundary kept, malformed bodies refused.
@Suite struct MultipartRelatedTests {
    static let boundary = "xYz123"
    static let media: [UInt8] = Array("line one\r\n--xYz12 not quite\r\n-\r\n--".utf8) + [0, 255, 13, 10, 45, 45]

    static func body(
        metadata: String = #"{"name":"a/b.txt","contentType":"text/plain"}"#,
        media: [UInt8] = media
    ) -> [UInt8] {
        Array(
            "--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n\(metadata)\r\n--\(boundary)\r\nContent-Type: text/plain\r\n\r\n"
                .utf8
        )
            + media + Array("\r\n--\(boundary)--".utf8)
    }

    /// Feeds `body` in pieces of `size`; returns the metadata, the media and whether it ended.
    static func read(_ body: [UInt8], in size: Int) throws -> (metadata: String?, media: [UInt8], ended: Bool) {
        var parser = MultipartRelated(boundary: boundary)
        var metadata: String?
        var mediaType: String?
        var media: [UInt8] = []
        var ended = false
        for start in stride(from: 0, to: body.count, by: size) {
            let piece = Array(body[start..<min(start + size, body.count)])
            for event in try piece.withUnsafeBytes({ try parser.feed($0) }) {
                switch event {
                case .metadata(let bytes): metadata = String(decoding: bytes, as: UTF8.self)
                case .mediaType(let type): mediaType = type
                case .media(let bytes): media += bytes
                case .end: ended = true
                }
            }
        }
        #expect(parser.isComplete == ended)
        if ended { #expect(mediaType == "text/plain", "the bytes part's own type is told") }
        return (metadata, media, ended)
    }

    @Test(arguments: [1, 2, 3, 7, 16, 1000])
    func anyChunkingReadsTheSameParts(size: Int) throws {
        let read = try Self.read(Self.body(), in: size)
        #expect(read.metadata == #"{"name":"a/b.txt","contentType":"text/plain"}"#)
        #expect(read.media == Self.media)
        #expect(read.ended)
    }

    @Test func anEmptyFileIsAFile() throws {
        let read = try Self.read(Self.body(media: []), in: 5)
        #expect(read.media.isEmpty && read.ended)
    }

    @Test func theBoundaryComesFromTheContentType() {
        #expect(MultipartRelated.boundary(fromContentType: "multipart/related; boundary=abc") == "abc")
        #expect(MultipartRelated.boundary(fromContentType: #"Multipart/Related;boundary="q q""#) == "q q")
        #expect(MultipartRelated.boundary(fromContentType: "multipart/form-data; boundary=abc") == nil)
        #expect(MultipartRelated.boundary(fromContentType: "multipart/related") == nil)
        #expect(MultipartRelated.boundary(fromContentType: "text/plain") == nil)
    }

    @Test func malformedBodiesAreRefused() throws {
        let noSecondPart = Array(
            "--\(Self.boundary)\r\nContent-Type: application/json\r\n\r\n{}\r\n--\(Self.boundary)--".utf8
        )
        #expect(throws: StorageError.self) { _ = try Self.read(noSecondPart, in: 4) }
        let noContentType = Array("--\(Self.boundary)\r\nX-Other: 1\r\n\r\n{}\r\n--\(Self.boundary)--".utf8)
        #expect(throws: StorageError.self) { _ = try Self.read(noContentType, in: 100) }
        let hugeMetadata = Self.body(metadata: String(repeating: " ", count: MultipartRelated.maxMetadataBytes + 1))
        #expect(throws: StorageError.self) { _ = try Self.read(hugeMetadata, in: 4096) }
        let noBoundary = Array(repeating: UInt8(ascii: "a"), count: MultipartRelated.maxMetadataBytes + 10)
        #expect(throws: StorageError.self) { _ = try Self.read(noBoundary, in: 4096) }
    }

    @Test func aBodyCutShortDoesNotEnd() throws {
        let body = Self.body()
        let read = try Self.read(Array(body.dropLast(4)), in: 9)
        #expect(!read.ended)
    }
}
