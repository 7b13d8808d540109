import Foundation
import HearthProtocol
import NIOCore
import Synchronization

/// Ticks the lean WebSocket connections (credential expiry, idle timeout): one repeated task
/// per event loop over that loop's connections, started with the loop's first connection and
/// cancelled with its last, instead of a timer per connection.
final class RealtimeTicker: Sendable {
    /// One event loop's connections; only touched on that loop.
    final class LoopMembers: @unchecked Sendable {
        let loop: any EventLoop
        var handlers: [RealtimeChannelHandler] = []
        var task: RepeatedTask?

        init(loop: any EventLoop) {
            self.loop = loop
        }
    }

    private let loops = Mutex<[ObjectIdentifier: LoopMembers]>([:])

    /// Adds `handler` (on its event loop) to its loop's round.
    func register(_ handler: RealtimeChannelHandler, interval: Duration) {
        let loop = handler.eventLoop
        loop.preconditionInEventLoop()
        let key = ObjectIdentifier(loop)
        let members = loops.withLock { loops in
            if let members = loops[key] { return members }
            let members = LoopMembers(loop: loop)
            loops[key] = members
            return members
        }
        handler.tickSlot = members.handlers.count
        members.handlers.append(handler)
        if members.task == nil {
            let amount = TimeAmount.nanoseconds(max(1_000_000, Self.nanoseconds(interval)))
            members.task = loop.scheduleRepeatedTask(initialDelay: amount, delay: amount) { _ in
                let now = Timestamp.now()
                // A handler may leave during the round: iterate over a copy.
                for handler in members.handlers { handler.tick(now: now) }
            }
        }
    }

    /// Removes `handler` (on its event loop); the loop's task stops with its last connection.
    func unregister(_ handler: RealtimeChannelHandler) {
        let loop = handler.eventLoop
        loop.preconditionInEventLoop()
        let slot = handler.tickSlot
        guard slot >= 0 else { return }
        handler.tickSlot = -1
        let key = ObjectIdentifier(loop)
        guard let members = loops.withLock({ $0[key] }) else { return }
        let last = members.handlers.count - 1
        if slot != last {
            let moved = members.handlers[last]
            members.handlers[slot] = moved
            moved.tickSlot = slot
        }
        members.handlers.removeLast()
        if members.handlers.isEmpty {
            members.task?.cancel()
            members.task = nil
            members.handlers = []
            loops.withLock { _ = $0.removeValue(forKey: key) }
        }
    }

    /// Ticks every connection now, on its loop (a credential was revoked: its connections send
    /// `ac` at once rather than at their next tick).
    func tickAll() {
        let all = loops.withLock { Array($0.values) }
        for members in all {
            members.loop.execute {
                let now = Timestamp.now()
                for handler in members.handlers { handler.tick(now: now) }
            }
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
