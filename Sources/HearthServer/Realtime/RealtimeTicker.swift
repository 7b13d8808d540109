import HearthProtocol
import NIOCore
import Synchronization

/// What `RealtimeTicker` ticks: a connection confined to its event loop.
protocol RealtimeTickable: AnyObject {
    var eventLoop: any EventLoop { get }
    /// The ticker's bookkeeping: the member's position in its loop's list (-1: not ticked).
    var tickSlot: Int { get set }
    /// Called on the member's loop.
    func tick(now: Timestamp)
}

/// Ticks the lean WebSocket connections (credential expiry, liveness, the auth-or-listen
/// deadline): one repeated task per event loop over that loop's connections, started with the
/// loop's first connection and cancelled with its last, instead of a timer per connection.
///
/// Each loop's members and task live in a `NIOLoopBoundBox`: only that loop can reach them
/// (checked), and only the table of loops is shared, under a lock.
final class RealtimeTicker: Sendable {
    /// One event loop's members and its repeated task.
    struct LoopMembers {
        var members: [any RealtimeTickable] = []
        var task: RepeatedTask?
    }

    private let loops = Mutex<[ObjectIdentifier: (loop: any EventLoop, box: NIOLoopBoundBox<LoopMembers>)]>([:])
    /// The time a tick is given (the wall clock; a test passes its own).
    private let clock: @Sendable () -> Timestamp

    init(clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() }) {
        self.clock = clock
    }

    /// Adds `member` (on its event loop) to its loop's round, every `interval` (at least 1 ms).
    func register(_ member: any RealtimeTickable, interval: Duration) {
        let loop = member.eventLoop
        let box = self.box(of: loop)
        member.tickSlot = box.value.members.count
        box.value.members.append(member)
        guard box.value.task == nil else { return }
        let amount = TimeAmount.nanoseconds(max(1_000_000, interval.nanoseconds))
        let clock = self.clock
        box.value.task = loop.scheduleRepeatedTask(initialDelay: amount, delay: amount) { _ in
            let now = clock()
            // A member may leave during the round: iterate over a copy.
            for member in box.value.members { member.tick(now: now) }
        }
    }

    /// Removes `member` (on its event loop); the loop's task stops with its last member.
    func unregister(_ member: any RealtimeTickable) {
        let loop = member.eventLoop
        loop.preconditionInEventLoop()
        let slot = member.tickSlot
        guard slot >= 0 else { return }
        member.tickSlot = -1
        let key = ObjectIdentifier(loop)
        guard let box = loops.withLock({ $0[key]?.box }) else { return }
        let last = box.value.members.count - 1
        if slot != last {
            let moved = box.value.members[last]
            box.value.members[slot] = moved
            moved.tickSlot = slot
        }
        box.value.members.removeLast()
        if box.value.members.isEmpty {
            box.value.task?.cancel()
            box.value = LoopMembers()
            loops.withLock { _ = $0.removeValue(forKey: key) }
        }
    }

    /// Ticks every member now, on its loop (a credential was revoked: its connections send
    /// `ac` at once rather than at their next tick).
    func tickAll() {
        let all = loops.withLock { Array($0.values) }
        let clock = self.clock
        for (loop, box) in all {
            loop.execute {
                let now = clock()
                for member in box.value.members { member.tick(now: now) }
            }
        }
    }

    /// The members of `loop` (on it); made with its first member.
    private func box(of loop: any EventLoop) -> NIOLoopBoundBox<LoopMembers> {
        loop.preconditionInEventLoop()
        let key = ObjectIdentifier(loop)
        return loops.withLock { loops in
            if let entry = loops[key] { return entry.box }
            let box = NIOLoopBoundBox(LoopMembers(), eventLoop: loop)
            loops[key] = (loop, box)
            return box
        }
    }

    /// The loops with members now (tests).
    var loopCount: Int { loops.withLock { $0.count } }
}
