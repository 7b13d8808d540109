import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a loopback port whose connections can be frozen: a
/// frozen connection stays open and carries nothing more either way, as one to a server that
/// died without closing it (a killed PostgreSQL primary behind a load balancer, a cut network).
/// Connections made after `freezeExisting()` pass as usual. `freezeAnswersOfExisting()` freezes
/// only what the server sends (its answers to what it was sent are lost: whether a statement ran
/// is unknown to the client). One thread per direction of each connection (a test makes a handful).
public final class FreezingProxy: Sendable {
    public let port: Int
    private let listener: Int32
    private let target: Int
    /// Per connection: whether each direction is frozen (to the server, to the client); its
    /// two sockets.
    private let connections = Mutex<[(frozen: (up: Bool, down: Bool), sockets: (Int32, Int32))]>([])
    private let stopped = Atomic<Bool>(false)

    public init(to target: Int) throws {
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestSetupError("socket() failed") }
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw TestSetupError("bind() or listen() failed") }
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Freezes every connection open now.
    public func freezeExisting() {
        connections.withLock { all in
            for index in all.indices { all[index].frozen = (true, true) }
        }
    }

    /// Freezes what the server sends on every connection open now; what the client sends still
    /// reaches it.
    public func freezeAnswersOfExisting() {
        connections.withLock { all in
            for index in all.indices { all[index].frozen.down = true }
        }
    }

    /// Stops accepting and closes every connection.
    public func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        connections.withLock { all in
            for connection in all {
                shutdown(connection.sockets.0, Int32(SHUT_RDWR))
                shutdown(connection.sockets.1, Int32(SHUT_RDWR))
            }
        }
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard upstream >= 0, connectLoopback(upstream, port: target) else {
                close(client)
                if upstream >= 0 { close(upstream) }
                continue
            }
            let index = connections.withLock { all -> Int in
                all.append(((false, false), (client, upstream)))
                return all.count - 1
            }
            for (from, to, up) in [(client, upstream, true), (upstream, client, false)] {
                Thread { [self] in pump(from: from, to: to, index: index, up: up) }.start()
            }
        }
    }

    private func isFrozen(_ index: Int, up: Bool) -> Bool {
        connections.withLock { up ? $0[index].frozen.up : $0[index].frozen.down }
    }

    private func pump(from: Int32, to: Int32, index: Int, up: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !stopped.load(ordering: .relaxed) {
            if isFrozen(index, up: up) {
                // Open, silent, never read again: the peer's writes fill the buffers and stall.
                usleep(50_000)
                continue
            }
            let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            if isFrozen(index, up: up) { continue }  // what arrived as it froze is dropped
            guard sendAll(to, Array(buffer[0..<count])) else { break }
        }
        if !isFrozen(index, up: up) {
            shutdown(to, Int32(SHUT_WR))
        }
    }
}
