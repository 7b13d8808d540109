import HearthFuzzSupport

@testable import HearthStorage

/// The streaming reader of multipart uploads (`MultipartRelated`), boundary `b0undary`. The first
/// byte chooses how the rest is used:
/// - even: the rest is a body, fed whole and in chunks of 0 to 64 bytes cut by a generator seeded
///   with the first byte, with parts and headers bounded at 8 to 262 bytes (so that inputs reach
///   the bound); both feeds give the same metadata, media type, media bytes (concatenated) and
///   end, or both refuse with the same error; the reader never holds more than the bound and a
///   boundary between feeds.
/// - odd: the rest is an object's bytes, put in a body as the SDKs' `uploadBytes` writes it; the
///   reader gives back exactly those bytes (unless they hold the delimiter itself).
enum MultipartFuzz {
    static let boundary = "b0undary"

    static let target = FuzzTarget(name: "multipart") { input in
        guard let first = input.first else { return }
        let rest = Array(input.dropFirst())
        if first & 1 == 0 {
            compareFeeds(rest, seed: UInt64(first))
        } else {
            roundTrip(rest, seed: UInt64(first))
        }
    }

    /// What a feed found, in a form two feeds can be compared by.
    struct Parse: Equatable {
        var metadata: [[UInt8]] = []
        var mediaTypes: [String] = []
        var media: [UInt8] = []
        var ends = 0
        var complete = false
        var refusal: String?
    }

    static func parse(
        _ body: [UInt8],
        bound: Int = MultipartRelated.maxMetadataBytes,
        seed: UInt64,
        chunks: (inout Generator) -> Int
    ) -> Parse {
        var reader = MultipartRelated(boundary: boundary, maxPartBytes: bound)
        var found = Parse()
        var generator = Generator(state: seed)
        var start = 0
        repeat {
            let end = min(body.count, start + chunks(&generator))
            do {
                for event in try reader.feed(Array(body[start..<end])) {
                    switch event {
                    case .metadata(let json): found.metadata.append(json)
                    case .mediaType(let type): found.mediaTypes.append(type)
                    case .media(let bytes):
                        require(!bytes.isEmpty, "an empty media event")
                        found.media += bytes
                    case .end: found.ends += 1
                    }
                }
            } catch {
                // What came before a refusal is dropped (the server cancels the upload): only the
                // refusal itself is compared.
                return Parse(refusal: "\(error.code): \(error.message)")
            }
            require(
                reader.buffered <= bound + boundary.utf8.count + 4,
                "the reader holds \(reader.buffered) bytes between feeds"
            )
            start = end
        } while start < body.count
        found.complete = reader.isComplete
        require(found.ends == (found.complete ? 1 : 0), "\(found.ends) ends, complete: \(found.complete)")
        require(found.metadata.count <= 1 && found.mediaTypes.count <= 1, "more than one metadata or media part")
        return found
    }

    static func compareFeeds(_ body: [UInt8], seed: UInt64) {
        let bound = 8 + Int(seed >> 1) * 2
        let whole = parse(body, bound: bound, seed: seed) { _ in Int.max / 2 }
        let chunked = parse(body, bound: bound, seed: seed) { Int($0.next() % 65) }
        require(whole == chunked, "whole: \(whole), in chunks: \(chunked)")
    }

    static func roundTrip(_ bytes: [UInt8], seed: UInt64) {
        let metadata = Array(#"{"name":"chats/c1/p.png","contentType":"image/png"}"#.utf8)
        let body =
            Array("--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n".utf8) + metadata
            + Array("\r\n--\(boundary)\r\nContent-Type: application/octet-stream\r\n\r\n".utf8) + bytes
            + Array("\r\n--\(boundary)--".utf8)
        let found = parse(body, seed: seed) { Int($0.next() % 4097) }
        if contains(bytes, Array("\r\n--\(boundary)".utf8)) { return }
        require(found.refusal == nil && found.complete, "a well-formed body refused: \(found)")
        require(found.metadata == [metadata], "the metadata part came back as \(found.metadata)")
        require(found.mediaTypes == ["application/octet-stream"], "media type \(found.mediaTypes)")
        require(found.media == bytes, "\(bytes.count) bytes uploaded, \(found.media.count) read back")
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// SplitMix64: chunk sizes that depend only on the seed.
    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
