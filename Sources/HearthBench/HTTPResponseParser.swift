import NIOCore

/// One HTTP/1.1 response as the benchmark needs it: the status, the body's size and its first bytes.
struct HTTPResponse: Sendable {
    var status: Int
    /// Body bytes received (after de-chunking).
    var bodyLength: Int
    /// The first `HTTPResponseParser.keptBodyLimit` bytes of the body.
    var bodyPrefix: ByteBuffer

    var isSuccess: Bool { (200..<300).contains(status) }

    var bodyText: String { String(buffer: bodyPrefix) }
}

struct HTTPParseError: Error, CustomStringConvertible {
    var description: String
}

/// A lean HTTP/1.1 response decoder: status line, `Content-Length`, `Transfer-Encoding: chunked`.
///
/// Other headers are skipped; the body is counted, and only its first bytes are kept, so a 50 MB
/// response costs one pass over the bytes and no copy.
struct HTTPResponseParser: ByteToMessageDecoder {
    typealias InboundOut = HTTPResponse

    static let keptBodyLimit = 64 * 1024

    private enum State {
        case head
        case body(remaining: Int)
        case untilClose
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
    }

    private var state = State.head
    private var status = 0
    private var received = 0
    private var prefix = ByteBuffer()

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        switch state {
        case .head:
            guard let headEnd = buffer.firstIndex(of: Self.crlfcrlf) else {
                if buffer.readableBytes > 64 * 1024 { throw HTTPParseError(description: "response head over 64 KiB") }
                return .needMoreData
            }
            let head = buffer.readSlice(length: headEnd - buffer.readerIndex + 4)!
            try parseHead(head)
            if case .body(remaining: 0) = state { emit(context: context) }
            return .continue
        case .body(let remaining):
            guard buffer.readableBytes > 0 else { return .needMoreData }
            let take = min(remaining, buffer.readableBytes)
            consume(&buffer, take)
            if take == remaining {
                emit(context: context)
            } else {
                state = .body(remaining: remaining - take)
            }
            return .continue
        case .untilClose:
            guard buffer.readableBytes > 0 else { return .needMoreData }
            consume(&buffer, buffer.readableBytes)
            return .needMoreData
        case .chunkSize:
            guard let lineEnd = buffer.firstIndex(of: Self.crlf) else { return .needMoreData }
            let line = buffer.readString(length: lineEnd - buffer.readerIndex)!
            buffer.moveReaderIndex(forwardBy: 2)
            let hex = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? line
            guard let size = Int(hex.trimmingSpaces(), radix: 16), size >= 0 else {
                throw HTTPParseError(description: "bad chunk size '\(line)'")
            }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            return .continue
        case .chunkData(let remaining):
            guard buffer.readableBytes > 0 else { return .needMoreData }
            let take = min(remaining, buffer.readableBytes)
            consume(&buffer, take)
            state = remaining == take ? .chunkEnd : .chunkData(remaining: remaining - take)
            return .continue
        case .chunkEnd:
            guard buffer.readableBytes >= 2 else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: 2)
            state = .chunkSize
            return .continue
        case .trailers:
            guard let lineEnd = buffer.firstIndex(of: Self.crlf) else { return .needMoreData }
            let empty = lineEnd == buffer.readerIndex
            buffer.moveReaderIndex(to: lineEnd + 2)
            if empty { emit(context: context) }
            return .continue
        }
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if case .untilClose = state { emit(context: context) }
        return .needMoreData
    }

    /// Parses the status line and the two framing headers straight from the bytes (no strings).
    private mutating func parseHead(_ head: ByteBuffer) throws {
        let parsed = head.withUnsafeReadableBytes { bytes -> (status: Int, contentLength: Int?, chunked: Bool)? in
            // "HTTP/1.x NNN ..."
            guard bytes.count >= 12, bytes[0] == UInt8(ascii: "H"), bytes[8] == UInt8(ascii: " ") else { return nil }
            var code = 0
            for i in 9..<12 {
                let digit = Int(bytes[i]) - 48
                guard (0...9).contains(digit) else { return nil }
                code = code * 10 + digit
            }
            var contentLength: Int?
            var chunked = false
            var lineStart = 0
            var i = 0
            while i + 1 < bytes.count {
                guard bytes[i] == 13, bytes[i + 1] == 10 else {
                    i += 1
                    continue
                }
                if lineStart > 0 {
                    let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<i])
                    if let value = Self.headerValue(line, named: Self.contentLengthName) {
                        var n = 0
                        for byte in value where byte >= 48 && byte <= 57 { n = n * 10 + Int(byte) - 48 }
                        contentLength = n
                    } else if let value = Self.headerValue(line, named: Self.transferEncodingName) {
                        chunked = Self.containsChunked(value)
                    }
                }
                i += 2
                lineStart = i
            }
            return (code, contentLength, chunked)
        }
        guard let parsed else {
            throw HTTPParseError(description: "bad status line '\(String(buffer: head).prefix(80))'")
        }
        status = parsed.status
        received = 0
        prefix.clear()
        if parsed.chunked {
            state = .chunkSize
        } else if let contentLength = parsed.contentLength {
            state = .body(remaining: contentLength)
        } else if status == 204 || status == 304 || status < 200 {
            state = .body(remaining: 0)
        } else {
            state = .untilClose
        }
    }

    private static let contentLengthName = Array("content-length:".utf8)
    private static let transferEncodingName = Array("transfer-encoding:".utf8)

    /// The bytes after `name` (lowercase, with its colon) when the header line starts with it, case-insensitively.
    private static func headerValue(_ line: UnsafeRawBufferPointer, named name: [UInt8]) -> UnsafeRawBufferPointer? {
        guard line.count >= name.count else { return nil }
        for j in 0..<name.count where line[j] | 0x20 != name[j] | 0x20 {
            return nil
        }
        return UnsafeRawBufferPointer(rebasing: line[name.count...])
    }

    private static func containsChunked(_ value: UnsafeRawBufferPointer) -> Bool {
        let word = Array("chunked".utf8)
        guard value.count >= word.count else { return false }
        for start in 0...(value.count - word.count) {
            var j = 0
            while j < word.count && value[start + j] | 0x20 == word[j] { j += 1 }
            if j == word.count { return true }
        }
        return false
    }

    private mutating func consume(_ buffer: inout ByteBuffer, _ count: Int) {
        let keep = min(count, Self.keptBodyLimit - prefix.readableBytes)
        if keep > 0 {
            var slice = buffer.getSlice(at: buffer.readerIndex, length: keep)!
            prefix.writeBuffer(&slice)
        }
        buffer.moveReaderIndex(forwardBy: count)
        received += count
    }

    private mutating func emit(context: ChannelHandlerContext) {
        let response = HTTPResponse(status: status, bodyLength: received, bodyPrefix: prefix)
        state = .head
        prefix = ByteBuffer()
        received = 0
        context.fireChannelRead(Self.wrapInboundOut(response))
    }

    private static let crlf: [UInt8] = Array("\r\n".utf8)
    private static let crlfcrlf: [UInt8] = Array("\r\n\r\n".utf8)
}

extension ByteBuffer {
    /// The absolute index where `needle` starts in the readable bytes, if it occurs.
    fileprivate func firstIndex(of needle: [UInt8]) -> Int? {
        withUnsafeReadableBytes { bytes -> Int? in
            let n = needle.count
            guard bytes.count >= n else { return nil }
            let first = needle[0]
            var i = 0
            while i <= bytes.count - n {
                if bytes[i] == first {
                    var j = 1
                    while j < n && bytes[i + j] == needle[j] { j += 1 }
                    if j == n { return self.readerIndex + i }
                }
                i += 1
            }
            return nil
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
