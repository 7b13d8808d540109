import Logging
import NIOCore
import Synchronization

/// The cap on open connections (HTTP, SSE and WebSocket together). A connection over it is
/// answered 503 (plain HTTP; a TLS connection is just closed) and closed at once, so that the
/// server keeps file descriptors for the connections it serves and a client at the cap hears
/// why; the refusals are logged at most once every ten seconds.
///
/// Each client address may hold at most `perAddressLimit` of them (429, then closed), so that one
/// client cannot take the whole cap; loopback peers (a reverse proxy on the same machine, local
/// tools) are exempt unless `limitsLoopback`, and so is a WebSocket another cluster node relays
/// once its upgrade shows the node's stamp (`exempt`: the relaying node limits its client).
final class ConnectionCap: Sendable {
    let limit: Int
    let perAddressLimit: Int?
    let limitsLoopback: Bool
    private let open = Atomic<Int>(0)
    /// Open connections by client address (an address leaves when its last one closes), and the
    /// address each counted connection is counted under.
    private let byAddress = Mutex<Addresses>(Addresses())

    private struct Addresses {
        var held: [String: Int] = [:]
        var counted: [ObjectIdentifier: String] = [:]

        /// Stops counting `connection`, if it was counted.
        mutating func release(_ connection: ObjectIdentifier) {
            guard let address = counted.removeValue(forKey: connection) else { return }
            let left = (held[address] ?? 1) - 1
            held[address] = left > 0 ? left : nil
        }
    }
    private let refusedSinceWarning = Atomic<Int>(0)
    /// Uptime nanoseconds of the last warning (0: none yet).
    private let lastWarning = Atomic<UInt64>(0)
    private let logger: Logger

    /// Why a connection was refused.
    enum Refusal {
        case serverFull, addressFull
    }

    init(limit: Int, perAddressLimit: Int? = nil, limitsLoopback: Bool = false, logger: Logger) {
        self.limit = limit
        self.perAddressLimit = perAddressLimit
        self.limitsLoopback = limitsLoopback
        self.logger = logger
    }

    /// Connections open now.
    var openConnections: Int { open.load(ordering: .relaxed) }

    /// Counts `channel` until it closes; the refusal (and nothing counted) when the cap, or its
    /// address's share, is reached.
    func admit(_ channel: any Channel) -> Refusal? {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard count <= limit else {
            open.wrappingSubtract(1, ordering: .relaxed)
            noteRefusal()
            return .serverFull
        }
        let address = perAddressLimit == nil ? nil : limitedAddress(of: channel)
        let connection = ObjectIdentifier(channel)
        if let address, let perAddressLimit {
            let admitted = byAddress.withLock { table -> Bool in
                let held = table.held[address, default: 0]
                guard held < perAddressLimit else { return false }
                table.held[address] = held + 1
                table.counted[connection] = address
                return true
            }
            guard admitted else {
                open.wrappingSubtract(1, ordering: .relaxed)
                return .addressFull
            }
        }
        channel.closeFuture.whenComplete { [self] _ in
            open.wrappingSubtract(1, ordering: .relaxed)
            if address != nil { byAddress.withLock { $0.release(connection) } }
        }
        return nil
    }

    /// Stops counting `channel` under its address (it stays under the server's cap): a
    /// WebSocket another node of the cluster relays, whose client that node limits.
    func exempt(_ channel: any Channel) {
        guard perAddressLimit != nil else { return }
        byAddress.withLock { $0.release(ObjectIdentifier(channel)) }
    }

    /// The client address `channel` counts under, or nil when it is not limited (loopback,
    /// unless `limitsLoopback`; a Unix socket).
    private func limitedAddress(of channel: any Channel) -> String? {
        guard let peer = channel.remoteAddress, let ip = peer.ipAddress else { return nil }
        if !limitsLoopback && LoopbackAddress.contains(ip) { return nil }
        return ip
    }

    /// Answers `channel` (unless it is TLS: `answer` false) and closes it.
    static func refuse(_ channel: any Channel, answer: Bool, because refusal: Refusal = .serverFull) {
        guard answer else {
            channel.close(promise: nil)
            return
        }
        let response = (refusal == .serverFull ? HTTPRefusal.tooManyConnections : .tooManyConnectionsFromAddress)
            .encoded(allocator: channel.allocator)
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
