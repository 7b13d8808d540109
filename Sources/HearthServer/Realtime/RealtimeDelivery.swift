import HearthCore
import HearthDatabase
import HearthProtocol
import NIOCore
import Synchronization

/// A push or a revocation for one listen (its registration's id and key), or the answer to a
/// write of a connection that listens, behind the pushes of the commits before it
/// (`NamespaceEngine.afterDeliveries`).
enum RealtimeDelivery: Sendable {
    case update(EncodedUpdate, id: UInt64, key: ListenKey)
    case revoked(id: UInt64, key: ListenKey)
    case answer(WriteAnswer)

    /// A write's outcome for its request (a reference: an item stays two words and a tag).
    final class WriteAnswer: Sendable {
        let outcome: RequestOutcome
        let requestID: RequestID

        init(_ outcome: RequestOutcome, for requestID: RequestID) {
            self.outcome = outcome
            self.requestID = requestID
        }
    }
}

/// What `RealtimeLoopInbox` hands deliveries to: a connection confined to its event loop. The
/// inbox is generic over it (specialised for `RealtimeChannelHandler`: no existential on the
/// per-delivery path); a test gives its own.
protocol RealtimeInboxConnection: RealtimeWriteAnswering {
    /// The inbox's bookkeeping: the connection's position in the batch being drained (-1:
    /// none). On the loop.
    var inboxSlot: Int { get set }
    /// Before the connection's deliveries of a batch (its flushes wait until `endDeliveries`).
    func beginDeliveries()
    /// One delivery, in delivery order.
    func receive(_ delivery: RealtimeDelivery)
    /// After the connection's deliveries of a batch: one flush for them all.
    func endDeliveries()
    /// Fan-out caught up after `RealtimeLoopInbox.shouldHoldReading` held the connection.
    func resumeReading()
}
