import HearthProtocol
import NIOCore
import Synchronization

/// What a write's answer goes to: a connection confined to its event loop.
protocol RealtimeWriteAnswering: AnyObject, Sendable {
    /// Called on the connection's loop.
    func completed(_ outcome: RequestOutcome, for requestID: RequestID)
}

/// The outcomes of writes for the WebSocket connections of one event loop, handed over from the
/// namespace writers' threads: a writer's round completes many writes at once, and they reach
/// the loop with one `execute` (one task, one wake-up) rather than one each, in the order they
/// completed.
final class RealtimeLoopCompletions<Connection: RealtimeWriteAnswering>: Sendable {
    struct Completion: Sendable {
        let handler: Connection
        let outcome: RequestOutcome
        let requestID: RequestID
    }

    private struct Pending {
        var items: [Completion] = []
        /// A hand-over is scheduled on the loop.
        var scheduled = false
    }

    let eventLoop: any EventLoop
    private let pending = Mutex(Pending())
    /// The emptied array of the last hand-over, reused by the next (touched on the loop only
    /// outside the lock, swapped in under it).
    private let spare = Mutex<[Completion]>([])

    private let urgent: UrgentWork

    init(eventLoop: any EventLoop, urgent: UrgentWork) {
        self.eventLoop = eventLoop
        self.urgent = urgent
    }

    /// From any thread: `handler`'s write `requestID` finished with `outcome`.
    func complete(_ handler: Connection, _ outcome: RequestOutcome, for requestID: RequestID) {
        let schedule = pending.withLock { pending -> Bool in
            pending.items.append(Completion(handler: handler, outcome: outcome, requestID: requestID))
            if pending.scheduled { return false }
            pending.scheduled = true
            return true
        }
        if schedule {
            urgent.raise()
            eventLoop.execute { self.handOver() }
        }
    }

    /// On the loop: every outcome that arrived, in order.
    private func handOver() {
        var items = spare.withLock { spare -> [Completion] in
            var taken: [Completion] = []
            swap(&taken, &spare)
            return taken
        }
        pending.withLock { pending in
            swap(&items, &pending.items)
            pending.scheduled = false
        }
        for item in items { item.handler.completed(item.outcome, for: item.requestID) }
        items.removeAll(keepingCapacity: items.capacity <= 4096)
        spare.withLock { $0 = items }
    }
}
