import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Many idle WebSocket connections at once, each a bare blocking socket that upgrades and reads
/// the server's hello, for the tests of what thousands of clients do together (a wave of
/// disconnects). Lighter than `RawWebSocket` per connection: a small buffer, no frame parsing
/// but the hello's.
public final class WebSocketCrowd: @unchecked Sendable {
    private var descriptors: [Int32]

    private init(descriptors: [Int32]) {
        self.descriptors = descriptors
    }

    deinit { for fd in descriptors { close(fd) } }

    public var count: Int { descriptors.count }

    /// Opens `count` connections to `/.ws?v=5` on `threads` threads; throws when one is not
    /// upgraded (the server answered otherwise, or refused the connection).
    public static func open(port: Int, count: Int, threads: Int = 4) async throws -> WebSocketCrowd {
        let shares = (0..<threads).map { count / threads + ($0 < count % threads ? 1 : 0) }
        let opened = try await withThrowingTaskGroup(of: [Int32].self) { group in
            for share in shares where share > 0 {
                group.addTask {
                    try await onThread {
                        var opened: [Int32] = []
                        do {
                            for _ in 0..<share { opened.append(try upgraded(port: port)) }
                        } catch {
                            for fd in opened { close(fd) }
                            throw error
                        }
                        return opened
                    }
                }
            }
            var all: [Int32] = []
            do {
                for try await part in group { all += part }
            } catch {
                for fd in all { close(fd) }
                throw error
            }
            return all
        }
        return WebSocketCrowd(descriptors: opened)
    }

    /// Closes every connection with a FIN and no close frame (nothing is left unread, so no
    /// reset), as clients that exit do.
    public func closeAll() {
        for fd in descriptors { close(fd) }
        descriptors = []
    }

    /// One connection, upgraded, the hello read (so that closing it sends a FIN, not a reset).
    private static func upgraded(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawWebSocketError("socket failed (errno \(errno))") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port) else {
            close(fd)
            throw RawWebSocketError("connect failed (errno \(errno))")
        }
        guard sendAll(fd, RawWebSocket.upgradeRequest(port: port)) else {
            close(fd)
            throw RawWebSocketError("the upgrade request could not be sent")
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !helloComplete(received) {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else {
                close(fd)
                let head = String(decoding: received.prefix(40), as: UTF8.self)
                throw RawWebSocketError("no upgrade and hello (errno \(errno)): \(head)")
            }
            received += chunk[0..<n]
        }
        return fd
    }

    /// Whether `bytes` hold a 101 head and the whole first frame after it; throws on another status.
    private static func helloComplete(_ bytes: [UInt8]) -> Bool {
        let separator = Array("\r\n\r\n".utf8)
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == separator })
        else { return false }
        let frame = bytes[(end + 4)...]
        guard frame.count >= 2 else { return false }
        let length = Int(frame[frame.startIndex + 1] & 0x7F)
        let header = length == 126 ? 4 : 2
        guard frame.count >= header else { return false }
        let payload =
            length == 126 ? Int(frame[frame.startIndex + 2]) << 8 | Int(frame[frame.startIndex + 3]) : length
        return frame.count >= header + payload
    }
}
