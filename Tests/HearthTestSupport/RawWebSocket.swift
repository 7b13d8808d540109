import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Shared by the server and CLI tests (a library target: test targets cannot depend on one
/// another). A WebSocket client on a plain blocking socket, for what a well-behaved client library will
/// not do: drop the TCP connection without a close frame, or stop reading.
public final class RawWebSocket: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects (from the loopback address `source`, if given) and upgrades `/.ws?query`;
    /// throws unless the server answers 101.
    public init(port: Int, query: String = "v=5", receiveBufferBytes: Int32? = nil, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawWebSocketError("socket failed") }
        if var size = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port, from: source) else {
            close(fd)
            throw RawWebSocketError("connect failed")
        }
        try writeAll(Self.upgradeRequest(port: port, query: query))
        var head: [UInt8] = []
        while !(head.count >= 4 && Array(head.suffix(4)) == Array("\r\n\r\n".utf8)) {
            head.append(try readByte())
        }
        let status = String(decoding: head, as: UTF8.self)
        guard status.hasPrefix("HTTP/1.1 101") else {
            close(fd)
            throw RawWebSocketError("upgrade refused: \(status.prefix(40))")
        }
    }

    /// The bytes of the upgrade request for `/.ws?query`.
    static func upgradeRequest(port: Int, query: String = "v=5") -> [UInt8] {
        Array(
            ("GET /.ws?\(query) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8
        )
    }

    /// Sends one masked text frame.
    public func sendText(_ text: String) throws {
        try sendFrame(firstByte: 0x81, Array(text.utf8))
    }

    /// Sends one masked frame: `firstByte` holds FIN, the RSV bits and the opcode, as sent (a
    /// test may set reserved ones); `payload` is sent as given (it may be invalid UTF-8).
    public func sendFrame(firstByte: UInt8, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [firstByte]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame.append(contentsOf: [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)])
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame.append(contentsOf: mask)
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        try writeAll(frame)
    }

    /// The next text frame from the server (control frames skipped).
    public func readText() throws -> String {
        while true {
            let (opcode, payload) = try readFrame()
            if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
            if opcode == 0x8 { throw RawWebSocketError("closed by the server") }
        }
    }

    /// Sends `bytes` as they are (a frame header alone, a payload in pieces); false when the
    /// server closed or reset the connection first.
    @discardableResult
    public func sendRaw(_ bytes: [UInt8]) -> Bool {
        sendAll(fd, bytes)
    }

    /// Reads (and drops) frames until the server's close frame; returns its code.
    public func readUntilClose() throws -> Int {
        while true {
            let (opcode, payload) = try readFrame()
            if opcode == 0x8 { return payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005 }
        }
    }

    /// Reads until the server closes: the close frame's code, or nil when the server dropped the
    /// TCP connection without one (it could not flush a close frame to a client that stopped
    /// reading). Throws when the server keeps the connection open past `within`: the end is
    /// waited for as an event, through silences longer than the socket's read timeout (a loaded
    /// machine has delayed a due drop past 10 s).
    public func readUntilDisconnected(within: Duration = .seconds(30)) throws -> Int? {
        let deadline = ContinuousClock.now + within
        while true {
            do {
                return try readUntilClose()
            } catch let failure as RawWebSocketError where failure == .connectionEnded {
                return nil
            } catch let failure as RawWebSocketError where failure == .timedOut {
                guard ContinuousClock.now < deadline else { throw failure }
            }
        }
    }

    /// Reads frames, answering each ping with a pong of the same payload, until `count` pings
    /// have been answered; returns the text frames read meanwhile. Throws when the server
    /// closes or drops the connection, or sends nothing for the read timeout.
    @discardableResult
    public func answerPings(_ count: Int) throws -> [String] {
        var answered = 0
        var texts: [String] = []
        while answered < count {
            let (opcode, payload) = try readFrame()
            switch opcode {
            case 0x1: texts.append(String(decoding: payload, as: UTF8.self))
            case 0x8: throw RawWebSocketError("closed by the server")
            case 0x9:
                try sendFrame(firstByte: 0x8A, payload)
                answered += 1
            default: break
            }
        }
        return texts
    }

    /// Reads text frames until the response to request `id` arrives.
    public func awaitResponse(to id: Int) throws -> String {
        while true {
            let text = try readText()
            if text.contains(#""r":\#(id),"#) { return text }
        }
    }

    /// Ends the TCP connection with a FIN and no close frame, as a process that exits or a
    /// client that closes its socket after reading does (what arrived unread is dropped first,
    /// so the kernel does not answer it with a reset).
    public func closeWithoutCloseFrame() {
        discardPending(fd)
        close(fd)
    }

    /// Half-closes the TCP connection (`shutdown(SHUT_WR)`, a FIN, no close frame): the server
    /// reads the end while this side can still read what it sends.
    public func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Drops the connection with a TCP reset: no close frame.
    public func abort() {
        resetAndClose(fd)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw RawWebSocketError("write failed") }
            offset += n
        }
    }

    /// The next frame from the server: its opcode and (unmasked) payload.
    private func readFrame() throws -> (opcode: UInt8, payload: [UInt8]) {
        let first = try readByte()
        var length = Int(try readByte() & 0x7F)
        if length == 126 {
            length = Int(try readByte()) << 8 | Int(try readByte())
        } else if length == 127 {
            length = 0
            for _ in 0..<8 { length = length << 8 | Int(try readByte()) }
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(length)
        for _ in 0..<length { payload.append(try readByte()) }
        return (first & 0x0F, payload)
    }

    private func readByte() throws -> UInt8 {
        if buffer.isEmpty {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { throw RawWebSocketError.connectionEnded }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw RawWebSocketError.timedOut }
            guard n > 0 else { throw RawWebSocketError("read failed (errno \(errno))") }
            buffer = Array(chunk[0..<n].reversed())
        }
        return buffer.removeLast()
    }
}

/// Closes `fd` with a TCP reset (`SO_LINGER` 0).
func resetAndClose(_ fd: Int32) {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    close(fd)
}

/// Reads and drops what `fd` has received and not read, without blocking.
func discardPending(_ fd: Int32) {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while chunk.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
}

/// Runs blocking socket work on a thread of its own, off the cooperative pool the in-process
/// server needs.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Blocking work started on a thread of its own at once, when the caller asks, not when a child
/// task later finds a free cooperative thread (on a loaded two-core machine that can take
/// seconds: too late for a peer that must answer pings on time).
public final class StartedThread<T: Sendable>: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<T, any Error>?>(nil)

    public init(_ body: @escaping @Sendable () throws -> T) {
        Thread.detachNewThread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// The body's result, once it has returned.
    public func value() async throws -> T {
        try await onThread { [self] in
            finished.wait()
            finished.signal()
            return try outcome.withLock { $0! }.get()
        }
    }
}

/// A failure of the raw client (connect, upgrade, framing, timeout).
public struct RawWebSocketError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// The server closed the TCP connection.
    public static let connectionEnded = RawWebSocketError("the connection ended")

    /// Nothing arrived within the socket's read timeout (10 s).
    public static let timedOut = RawWebSocketError("nothing read within the socket's 10 s read timeout")
}
