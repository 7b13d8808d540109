import HearthCore
import HearthDatabase
import HearthProtocol
import Synchronization

/// Receives the engine's pushes for one SSE stream and turns them into events in the stream's
/// bounded queue. Pushes that arrive before the initial `put` was queued wait for it; a
/// consumer too slow to keep the queue under its limit has its stream ended.
final class EventStreamSubscriber: ListenSubscriber {
    private enum Phase {
        case waiting([EncodedUpdate])
        case live
        case ended
    }

    let location: DataPath
    let format: RenderFormat
    let queue: OutboundQueue
    private let phase = Mutex(Phase.waiting([]))

    init(location: DataPath, format: RenderFormat, queue: OutboundQueue) {
        self.location = location
        self.format = format
        self.queue = queue
    }

    func deliver(_ update: EncodedUpdate, for registration: ListenRegistration) {
        // Encoding and enqueueing under the lock keeps events in delivery order.
        phase.withLock { phase in
            switch phase {
            case .waiting(var held):
                held.append(update)
                phase = .waiting(held)
            case .live:
                if !enqueue(ServerSentEvent.update(update, at: location, format: format)) { phase = .ended }
            case .ended:
                break
            }
        }
    }

    /// Read access lost (a write or a rules change): `cancel` with Firebase's reason, and the
    /// stream ends.
    func revoked(_ registration: ListenRegistration) {
        revoke(with: .cancel(reason: "Permission denied"))
    }

    /// Queues the initial `put` (the data at the location when the listen started), then the
    /// pushes that arrived meanwhile.
    func start(initial data: Node?) {
        phase.withLock { phase in
            guard case .waiting(let held) = phase else { return }
            phase = .live
            guard enqueue(.put(path: .root, node: data, format: format)) else {
                phase = .ended
                return
            }
            for update in held where !enqueue(ServerSentEvent.update(update, at: location, format: format)) {
                phase = .ended
                return
            }
        }
    }

    /// Sends `event` (keep-alive); false when the stream has ended.
    @discardableResult
    func send(_ event: ServerSentEvent) -> Bool {
        phase.withLock { phase in
            guard case .live = phase else { return false }
            if !enqueue(event) { phase = .ended }
            return true
        }
    }

    /// Sends a last event (`cancel`, `auth_revoked`) and ends the stream: the hook for the rules
    /// engine (read permission lost) and for credential expiry.
    func revoke(with event: ServerSentEvent) {
        phase.withLock { phase in
            if case .ended = phase { return }
            phase = .ended
            _ = queue.enqueue([event.bytes])
            queue.end(.finish)
        }
    }

    /// Ends the stream after what is queued.
    func end() {
        phase.withLock { $0 = .ended }
        queue.end(.finish)
    }

    private func enqueue(_ event: ServerSentEvent) -> Bool {
        if queue.enqueue([event.bytes]) { return true }
        // Slow consumer: drop what waits and end the stream; the client reconnects.
        queue.end(.finish, discardPending: true)
        return false
    }
}
