import HearthCore
import HearthDatabase
import HearthNIO
import HearthProtocol
import NIOCore
import Synchronization

/// The engine's deliveries to the WebSocket connections of one event loop.
///
/// The delivery queue appends each push or revocation, with its connection, under a lock; one
/// `execute` per burst drains them on the loop (not one per connection). A drain takes what is
/// pending as one batch and groups it by connection (keeping each connection's order); then each
/// connection handles all its deliveries of the batch and is flushed once, so pushes that piled
/// up for a connection leave in one system call. A push sent unchanged to many connections (an
/// untagged listen) is framed once per batch and the same buffer is written to each of them.
///
/// A drain runs in slices of about `RealtimeTuning.slice`: between slices the loop serves its
/// sockets, so a publisher's next write and its acknowledgement do not wait for a whole fan-out;
/// deliveries arriving meanwhile form the next batch. A drain starts at once; one of a lone
/// burst (`DeliveryPacing`) runs in longer slices, until another burst arrives or a write's
/// round or outcomes cut one short.
///
/// Writers are held back when fan-out falls behind: while more than
/// `RealtimeLoopInboxes.holdAbove` deliveries wait on all loops, connections stop reading their
/// sockets, until fewer than `resumeBelow` wait.
///
/// Time (the pacing's arrivals, a slice's length) is read from `RealtimeLoopInboxes.clock`;
/// the pauses between slices are scheduled on the loop.
final class RealtimeLoopInbox<Connection: RealtimeInboxConnection>: Sendable {
    typealias Delivery = RealtimeDelivery

    struct Item: Sendable {
        let handler: Connection
        let delivery: Delivery
    }

    private struct Pending {
        var items: [Item] = []
        /// A drain is scheduled or under way.
        var scheduled = false
        var pacing: DeliveryPacing
    }

    /// What only the loop touches (reached through `state`, which checks the thread).
    private final class LoopState {
        /// The batch being drained: `items[grouped...]` still to group by connection, then
        /// `touched[served...]` still to serve.
        var items: [Item] = []
        var grouped = 0
        /// Per item: the index of the connection's next item in the batch, or -1.
        var next: [Int32] = []
        /// The batch's connections in the order first seen, with the first and last index of
        /// their items (a connection's `inboxSlot` is its index here).
        var touched: [Connection] = []
        var first: [Int32] = []
        var last: [Int32] = []
        var served = 0
        /// Frames built for this batch (at most `frameSlots`, oldest replaced first).
        var frames: [(update: EncodedUpdate, frame: ByteBuffer)] = []
        var nextSlot = 0
        /// Connections that stopped reading while fan-out was behind.
        var held: [Connection] = []
        /// Writes started during this loop iteration, handed to the writers once its I/O is done.
        var writes: [(WritePass) -> Void] = []
        var spareWrites: [(WritePass) -> Void] = []
        var writesScheduled = false
        /// Frames read from this loop's connections (a new inbox counts as having read one: its
        /// first connection is about to speak), the count at the last slice's end, when that
        /// count last changed, and when a drain last paused (uptime nanoseconds).
        var framesRead: UInt64 = 1
        var framesSeen: UInt64 = 0
        var lastFrame: UInt64 = 0
        var lastPause: UInt64 = 0
    }

    private static var frameSlots: Int { 8 }
    /// Arrays that grew past this in a burst are not kept for the next one.
    private static var keptCapacity: Int { 16_384 }
    /// How long one slice of a drain may run before the loop serves its sockets, and how long
    /// while the drain serves a lone burst (`RealtimeTuning`).
    private let sliceNanoseconds: Int64
    private let loneBurstSliceNanoseconds: Int64
    /// A loop none of whose connections sent a frame for `quietAfter` drains on past a slice's
    /// end without a pause, for at most `quietRun` at a time (`RealtimeTuning`).
    private let quietAfterNanoseconds: UInt64
    private let quietRunNanoseconds: UInt64
    /// The pause that lets the loop poll its sockets between slices.
    static var yieldNanoseconds: Int64 { 20_000 }

    let eventLoop: any EventLoop
    /// Runs the tasks of the connections' short database actions on this loop.
    let executor: EventLoopTaskExecutor
    /// Hands the outcomes of this loop's connections' writes over, a writer's round at a time.
    let completions: RealtimeLoopCompletions<Connection>
    private let all: RealtimeLoopInboxes<Connection>
    /// Uptime nanoseconds (`RealtimeLoopInboxes.clock`).
    private let clock: @Sendable () -> UInt64
    private let allocator = ByteBufferAllocator()
    private let pending: Mutex<Pending>
    /// `pending.pacing.burst`, for a drain to see without the lock whether its burst is lone.
    private let burst = Atomic<UInt64>(0)
    private let loopState: NIOLoopBound<LoopState>
    /// The loop's own state; a precondition checks the caller is on the loop. Each method takes
    /// it once.
    private var state: LoopState { loopState.value }

    /// This loop, as a thread that runs namespace writers' rounds.
    private let home: WritePass.Home
    /// Set when a write's round or outcomes were handed to this loop: a drain then ends its
    /// slice at its next check, so the write is not kept waiting behind the fan-out.
    private let urgent: UrgentWork

    /// Made on `eventLoop` (with the loop's first connection).
    init(eventLoop: any EventLoop, all: RealtimeLoopInboxes<Connection>) {
        loopState = NIOLoopBound(LoopState(), eventLoop: eventLoop)
        clock = all.clock
        let tuning = all.tuning
        sliceNanoseconds = tuning.slice.nanoseconds
        loneBurstSliceNanoseconds = tuning.loneBurstSlice.nanoseconds
        quietAfterNanoseconds = UInt64(tuning.quietLoopAfter.nanoseconds)
        quietRunNanoseconds = UInt64(tuning.quietLoopRun.nanoseconds)
        pending = Mutex(
            Pending(
                pacing: DeliveryPacing(
                    burstWindow: UInt64(tuning.burstWindow.nanoseconds),
                    sustainedGap: UInt64(tuning.sustainedGap.nanoseconds)
                )
            )
        )
        let urgent = UrgentWork()
        self.eventLoop = eventLoop
        self.executor = EventLoopTaskExecutor(eventLoop: eventLoop)
        self.completions = RealtimeLoopCompletions(eventLoop: eventLoop, urgent: urgent)
        self.all = all
        self.urgent = urgent
        home = WritePass.Home(id: ObjectIdentifier(eventLoop)) { work in
            urgent.raise()
            eventLoop.execute(work)
        }
    }

    /// What an append asks of the loop: nothing (a drain is coming), or a drain (with the lone
    /// burst it serves, if any).
    private enum Drain { case none, now(lone: UInt64?) }

    /// From the engine's delivery queue; never blocks. The first delivery while no drain is
    /// scheduled starts one at once; a write's answer never starts a lone burst's long slices.
    func append(_ handler: Connection, _ delivery: Delivery) {
        all.waiting.add(1, ordering: .relaxed)
        var isAnswer = false
        if case .answer = delivery { isAnswer = true }
        let drain = pending.withLock { pending -> Drain in
            pending.items.append(Item(handler: handler, delivery: delivery))
            if case .update(let update, _, _) = delivery,
                pending.pacing.arrived(ObjectIdentifier(update), now: clock)
            {
                burst.store(pending.pacing.burst, ordering: .relaxed)
            }
            if pending.scheduled { return .none }
            pending.scheduled = true
            return .now(lone: isAnswer ? nil : pending.pacing.loneBurst)
        }
        if case .now(let lone) = drain {
            eventLoop.execute { self.drain(lone: lone) }
        }
    }

    /// The text frame of `update`'s untagged message, built once per batch. On the loop.
    func frame(for update: EncodedUpdate) -> ByteBuffer {
        let state = self.state
        for entry in state.frames where entry.update === update { return entry.frame }
        let frame = WebSocketFrameBytes.frame(opcode: WebSocketFrameBytes.text, update.message, allocator: allocator)
        if state.frames.count < Self.frameSlots {
            state.frames.append((update, frame))
        } else {
            state.frames[state.nextSlot] = (update, frame)
            state.nextSlot = (state.nextSlot + 1) % Self.frameSlots
        }
        return frame
    }

    /// Runs `submit` (which hands a write to its namespace writer in the `WritePass` it is
    /// given) once the loop has handled the I/O of this iteration, with the writes its other
    /// connections started meanwhile, all in one pass. At the pass's end each writer gets its
    /// share at once and commits it in one round — one LevelDB write, and no wake-up of another
    /// thread when this loop is the writer's home — instead of being woken for the first and
    /// taking the others one or two at a time. On the loop.
    func submitWrite(_ submit: @escaping (WritePass) -> Void) {
        let state = self.state
        state.writes.append(submit)
        guard !state.writesScheduled else { return }
        state.writesScheduled = true
        // A task runs after the I/O events of the loop's current iteration.
        eventLoop.execute { self.submitWrites() }
    }

    private func submitWrites() {
        let state = self.state
        var writes = state.spareWrites
        swap(&writes, &state.writes)
        state.writesScheduled = false
        let pass = WritePass(home: home)
        for submit in writes { submit(pass) }
        pass.finish()
        writes.removeAll(keepingCapacity: writes.capacity <= Self.keptCapacity)
        state.spareWrites = writes
    }

    /// Asked by a connection about to read (on the loop): true when fan-out is behind, and the
    /// connection is then told `resumeReading()` once it has caught up.
    func shouldHoldReading(_ handler: Connection) -> Bool {
        guard all.waiting.load(ordering: .relaxed) > RealtimeLoopInboxes<Connection>.holdAbove else { return false }
        state.held.append(handler)
        all.holding.store(true, ordering: .relaxed)
        return true
    }

    /// Fan-out caught up: the held connections read again. On the loop.
    func resumeHeld() {
        let state = self.state
        guard !state.held.isEmpty else { return }
        let held = state.held
        state.held = []
        for handler in held { handler.resumeReading() }
    }

    /// Drains for one slice, then lets the loop serve its sockets and goes on. The slice is long
    /// while `lone` is the number of the last burst to arrive and no write's round or outcomes
    /// cut a slice short; short from then on. On a loop whose connections only listen (no frame
    /// for `quietLoopAfter`) a slice that ends on time is followed by the next without a pause,
    /// up to `quietLoopRun` since the last one: there is nothing to read meanwhile, and each
    /// pause is a timer and a sleep of the loop's thread, which the clients then fill with
    /// wake-ups that read a few sockets each.
    private func drain(lone: UInt64?) {
        let state = self.state
        var sliceStart = clock()
        state.lastPause = sliceStart
        var lone = lone
        // Raised for work queued before this slice began (and so run before it): not urgent now.
        _ = urgent.take()
        var steps = 0
        while true {
            if state.grouped < state.items.count {
                group(state.grouped, in: state)
                state.grouped += 1
            } else if state.served < state.touched.count {
                steps += serve(state.served, in: state)
                state.served += 1
            } else if !nextBatch() {
                return
            }
            steps += 1
            if steps >= 16 {
                steps = 0
                let cut = urgent.take()
                if let number = lone, cut || burst.load(ordering: .relaxed) != number { lone = nil }
                if !cut {
                    let slice = lone == nil ? sliceNanoseconds : loneBurstSliceNanoseconds
                    let now = clock()
                    guard now &- sliceStart >= UInt64(slice) else { continue }
                    if mayRunOn(at: now, state) {
                        sliceStart = now
                        continue
                    }
                }
                eventLoop.scheduleTask(in: .nanoseconds(Self.yieldNanoseconds)) { [lone] in
                    self.drain(lone: lone)
                }
                return
            }
        }
    }

    /// A frame arrived on one of this loop's connections. On the loop.
    func frameRead() {
        state.framesRead &+= 1
    }

    /// Whether a drain whose slice is over may go on without a pause: no frame arrived on this
    /// loop's connections for a while (they only listen: there is nothing to read between
    /// slices), and it paused less than `quietLoopRun` ago.
    private func mayRunOn(at now: UInt64, _ state: LoopState) -> Bool {
        if state.framesRead != state.framesSeen {
            state.framesSeen = state.framesRead
            state.lastFrame = now
            return false
        }
        return now &- state.lastFrame >= quietAfterNanoseconds && now &- state.lastPause < quietRunNanoseconds
    }

    /// Links item `index` behind its connection's earlier items of the batch.
    private func group(_ index: Int, in state: LoopState) {
        let handler = state.items[index].handler
        let item = Int32(index)
        state.next.append(-1)
        if handler.inboxSlot < 0 {
            handler.inboxSlot = state.touched.count
            state.touched.append(handler)
            state.first.append(item)
            state.last.append(item)
        } else {
            let slot = handler.inboxSlot
            state.next[Int(state.last[slot])] = item
            state.last[slot] = item
        }
    }

    /// Hands connection `slot` its deliveries of the batch, in order, and flushes it once.
    /// Returns the number of deliveries.
    private func serve(_ slot: Int, in state: LoopState) -> Int {
        let handler = state.touched[slot]
        handler.inboxSlot = -1
        handler.beginDeliveries()
        var index = Int(state.first[slot])
        var count = 0
        while index >= 0 {
            handler.receive(state.items[index].delivery)
            index = Int(state.next[index])
            count += 1
        }
        handler.endDeliveries()
        all.handedOver(count)
        return count
    }

    /// Ends the batch just drained and takes what is pending as the next; false (and no drain
    /// scheduled) when nothing is.
    private func nextBatch() -> Bool {
        let state = self.state
        let keep = state.items.capacity <= Self.keptCapacity
        state.frames.removeAll(keepingCapacity: true)
        state.nextSlot = 0
        state.items.removeAll(keepingCapacity: keep)
        state.next.removeAll(keepingCapacity: keep)
        state.touched.removeAll(keepingCapacity: keep)
        state.first.removeAll(keepingCapacity: keep)
        state.last.removeAll(keepingCapacity: keep)
        state.grouped = 0
        state.served = 0
        // The emptied array goes to `pending` (its capacity is reused), the pending items come here.
        return pending.withLock { pending -> Bool in
            guard !pending.items.isEmpty else {
                pending.scheduled = false
                return false
            }
            swap(&state.items, &pending.items)
            return true
        }
    }
}
