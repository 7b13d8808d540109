import HearthCore
import HearthDatabase
import HearthProtocol
import NIOCore
import Synchronization

/// A flag raised from any thread when work that a write waits for was handed to a loop.
final class UrgentWork: Sendable {
    private let flag = Atomic<Bool>(false)

    func raise() {
        flag.store(true, ordering: .relaxed)
    }

    /// Whether it was raised since the last `take`; lowers it.
    func take() -> Bool {
        flag.load(ordering: .relaxed) && flag.exchange(false, ordering: .relaxed)
    }
}

/// One `RealtimeLoopInbox` per event loop, created with the loop's first connection, and the
/// count of deliveries waiting on all of them (the hold on reading).
final class RealtimeLoopInboxes<Connection: RealtimeInboxConnection>: Sendable {
    let tuning: RealtimeTuning
    /// The time the inboxes pace and slice by, in uptime nanoseconds: `NIODeadline.now()`, or
    /// a test's clock.
    let clock: @Sendable () -> UInt64

    /// Connections stop reading while more deliveries than this wait…
    static var holdAbove: Int { 65_536 }
    /// … and read again once fewer than this do.
    static var resumeBelow: Int { 16_384 }

    private let inboxes = Mutex<[ObjectIdentifier: RealtimeLoopInbox<Connection>]>([:])
    /// Deliveries appended and not yet handed over and flushed, on all loops.
    let waiting = Atomic<Int>(0)
    /// Some connection holds its reading.
    let holding = Atomic<Bool>(false)

    init(
        tuning: RealtimeTuning = RealtimeTuning(),
        clock: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds }
    ) {
        self.tuning = tuning
        self.clock = clock
    }

    func inbox(for eventLoop: any EventLoop) -> RealtimeLoopInbox<Connection> {
        inboxes.withLock { inboxes in
            let key = ObjectIdentifier(eventLoop)
            if let inbox = inboxes[key] { return inbox }
            let inbox = RealtimeLoopInbox(eventLoop: eventLoop, all: self)
            inboxes[key] = inbox
            return inbox
        }
    }

    /// `count` deliveries were handed over and flushed; below `resumeBelow`, held connections
    /// read again.
    func handedOver(_ count: Int) {
        let left = waiting.subtract(count, ordering: .relaxed).newValue
        guard left < Self.resumeBelow, holding.load(ordering: .relaxed),
            holding.exchange(false, ordering: .relaxed)
        else { return }
        for inbox in inboxes.withLock({ Array($0.values) }) {
            inbox.eventLoop.execute { inbox.resumeHeld() }
        }
    }
}
