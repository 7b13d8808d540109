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

    private mutating func parseHead(_ head: ByteBuffer) throws {
        let text = String(buffer: head)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true).makeIterator()
        guard let statusLine = lines.next(), statusLine.hasPrefix("HTTP/1."),
            let code = Int(statusLine.dropFirst(9).prefix(3))
        else {
            throw HTTPParseError(description: "bad status line '\(text.prefix(80))'")
        }
        status = code
        received = 0
        prefix.clear()
        var contentLength: Int?
        var chunked = false
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            if name == "content-length" {
                contentLength = Int(value)
            } else if name == "transfer-encoding" {
                chunked = value.lowercased().contains("chunked")
            }
        }
        if chunked {
            state = .chunkSize
        } else if let contentLength {
            state = .body(remaining: contentLength)
        } else if code == 204 || code == 304 || code < 200 {
            state = .body(remaining: 0)
        } else {
            state = .untilClose
        }
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
