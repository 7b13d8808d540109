import Logging
import NIOCore
import Synchronization

/// The cap on open connections (HTTP, SSE and WebSocket together). A connection over it is
/// answered 503 (plain HTTP; a TLS connection is just closed) and closed at once, so that the
/// server keeps file descriptors for the connections it serves and a client at the cap hears
/// why; the refusals are logged at most once every ten seconds.
final class ConnectionCap: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)
    private let refusedSinceWarning = Atomic<Int>(0)
    /// Uptime nanoseconds of the last warning (0: none yet).
    private let lastWarning = Atomic<UInt64>(0)
    private let logger: Logger

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    /// Connections open now.
    var openConnections: Int { open.load(ordering: .relaxed) }

    /// Counts `channel` until it closes; false (and nothing counted) when the cap is reached.
    func admit(_ channel: any Channel) -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard count <= limit else {
            open.wrappingSubtract(1, ordering: .relaxed)
            noteRefusal()
            return false
        }
        channel.closeFuture.whenComplete { [self] _ in open.wrappingSubtract(1, ordering: .relaxed) }
        return true
    }

    /// Answers `channel` (unless it is TLS: `answer` false) and closes it.
    static func refuse(_ channel: any Channel, answer: Bool) {
        guard answer else {
            channel.close(promise: nil)
            return
        }
        let response = HTTPRefusal.tooManyConnections.encoded(allocator: channel.allocator)
        channel.writeAndFlush(response).whenComplete { _ in channel.close(promise: nil) }
    }

    private func noteRefusal() {
        let refused = refusedSinceWarning.wrappingAdd(1, ordering: .relaxed).newValue
        let now = NIODeadline.now().uptimeNanoseconds
        let last = lastWarning.load(ordering: .relaxed)
        guard last == 0 || now - last >= 10_000_000_000 else { return }
        guard lastWarning.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        refusedSinceWarning.wrappingSubtract(refused, ordering: .relaxed)
        logger.warning(
            "connection limit reached: refusing new connections",
            metadata: ["hearth.max_connections": "\(limit)", "hearth.refused": "\(refused)"]
        )
    }
}
