import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Shared by the server and CLI tests. An HTTP client on a plain socket, for what HTTP client
/// libraries will not do: send malformed requests byte for byte, send a head slowly, stop in
/// the middle of a body, and watch when the server answers and when it closes.
public final class RawConnection: @unchecked Sendable {
    /// A response as read off the socket.
    public struct Response: Sendable, CustomStringConvertible {
        public var status: Int
        /// Header fields, names lowercased.
        public var headers: [String: String]
        public var body: String
        public var description: String { "\(status) \(headers) \(body)" }
    }

    private let fd: Int32
    private var closed = false
    private var received: [UInt8] = []
    /// The server closed (or reset) the connection.
    public private(set) var ended = false

    /// Connects to 127.0.0.1:`port` (from the loopback address `source`, if given); throws
    /// when the connection fails.
    public init(port: Int, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawWebSocketError("socket failed") }
        guard connectLoopback(fd, port: port, from: source) else {
            close(fd)
            throw RawWebSocketError("connect failed (errno \(errno))")
        }
        // Writes must not block forever against a server that stopped reading.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { if !closed { close(fd) } }

    /// Closes the socket as a client that is done does: a FIN (what arrived unread is dropped
    /// first, so the kernel does not answer it with a reset).
    public func closeSocket() {
        guard !closed else { return }
        discardPending(fd)
        closed = true
        close(fd)
    }

    /// Drops the connection with a TCP reset.
    public func abortSocket() {
        guard !closed else { return }
        closed = true
        resetAndClose(fd)
    }

    /// Half-closes: the server reads the end (FIN) while this side can still read.
    public func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads until what arrived (since the last read of a response) holds `text`; throws after
    /// `timeout`, or when the connection ends first.
    public func readUntil(contains text: String, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        let needle = Array(text.utf8)
        while !received.contains(needle) {
            if ended { throw RawWebSocketError("the connection ended before \(text)") }
            try fill(until: deadline)
        }
        received = []
    }

    /// Sends all of `bytes`; false when the server closed or reset the connection first.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        sendAll(fd, bytes)
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends `text` every `milliseconds` while the server neither answers nor closes, at most
    /// `limit` times (a slowloris); returns how often it was sent.
    public func dribble(_ text: String, atMost limit: Int, every milliseconds: Int32 = 50) -> Int {
        var sent = 0
        while sent < limit, !readable(within: milliseconds) {
            guard send(text) else { break }
            sent += 1
        }
        return sent
    }

    /// Sends `count` bytes of `fill` in pieces of `piece` bytes, stopping as soon as the server
    /// answers or closes; returns how many bytes were sent.
    public func sendBody(count: Int, piece: Int = 64 << 10, fill: UInt8 = UInt8(ascii: "x")) -> Int {
        let chunk = [UInt8](repeating: fill, count: piece)
        var sent = 0
        while sent < count {
            if readable(within: 0) { return sent }
            let size = min(piece, count - sent)
            let n = chunk.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, size, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 {
                sent += n
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                // The server is not reading: wait until it reads or answers.
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN | POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, 10_000)
                if descriptor.revents == 0 { return sent }
            } else {
                return sent
            }
        }
        return sent
    }

    /// Reads one response; nil when the connection ended first, throws after `timeout`.
    public func readResponse(timeout: Duration = .seconds(10)) throws -> Response? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let response = parseResponse() { return response }
            if ended { return nil }
            try fill(until: deadline)
        }
    }

    /// Waits until the server closes the connection, dropping what it sends; throws after
    /// `timeout`. Returns what arrived meanwhile.
    @discardableResult
    public func waitForClose(timeout: Duration = .seconds(10)) throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while !ended { try fill(until: deadline) }
        defer { received = [] }
        return received
    }

    /// Whether bytes (or the end) can be read within `milliseconds`.
    public func readable(within milliseconds: Int32) -> Bool {
        if !received.isEmpty || ended { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    private func fill(until deadline: ContinuousClock.Instant) throws {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { throw RawWebSocketError("no answer within the timeout") }
        let milliseconds = Int32(
            clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
        )
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { throw RawWebSocketError("no answer within the timeout") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 {
            ended = true
        } else {
            received.append(contentsOf: chunk[0..<n])
        }
    }

    /// A whole response (with a `Content-Length` body) at the start of `received`, consumed.
    private func parseResponse() -> Response? {
        let separator = Array("\r\n\r\n".utf8)
        guard
            let headEnd = received.indices.first(where: { index in
                index + 4 <= received.count && Array(received[index..<index + 4]) == separator
            })
        else { return nil }
        let head = String(decoding: received[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        let bodyStart = headEnd + 4
        guard received.count >= bodyStart + length || (ended && headers["content-length"] == nil) else { return nil }
        let bodyEnd = headers["content-length"] == nil ? received.count : bodyStart + length
        let body = String(decoding: received[bodyStart..<bodyEnd], as: UTF8.self)
        received.removeFirst(bodyEnd)
        return Response(status: status, headers: headers, body: body)
    }
}
