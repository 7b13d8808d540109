import HearthCore
import HearthProtocol

/// The decisions of one realtime WebSocket connection, without I/O: a value that takes the
/// connection's events (socket messages, engine deliveries, database outcomes, ticks, the
/// channel's writability) and returns, through `nextAction()`, what `RealtimeChannelHandler`
/// must do, in order. It owns the `RealtimeSession` and adds what the socket needs around it:
///
/// - **One thing at a time.** While a database action is in flight (*busy*) later events wait
///   in a backlog, so a listen's data always leaves before the deliveries that raced it and
///   responses leave in request order. An outcome goes before anything still queued.
/// - **Backpressure.** Reading is held while `maxUnhandledFrames` messages wait in the backlog
///   (or while fan-out is behind, `holdReading`) and released once they are handled.
/// - **Slow consumers.** The first frame of a batch (consecutive frames of one event, or one
///   shared push) finds the channel unwritable: the connection is closed with 1008 instead.
/// - **Flushes.** One per burst: after the backlog is worked off, never during a batch of
///   engine deliveries (`beginDeliveries` … `endDeliveries`).
/// - **Timers.** Liveness pings, and the close of a connection that stays anonymous, with no
///   listen, no onDisconnect operation and no request but keep-alives for `authOrListenTimeout`.
struct RealtimeConnection<Registration: RealtimeListenHandle> {
    typealias Action = RealtimeConnectionAction<Registration>

    typealias Limits = RealtimeConnectionLimits

    /// Something that reaches the session in turn (it waits in the backlog while busy).
    enum Event {
        /// A whole text (or binary) message from the client.
        case message([UInt8], now: Timestamp)
        /// An engine push for a listen (its registration's id and key).
        case update(EncodedUpdate, id: UInt64, key: ListenKey)
        /// The engine revoked a listen (read access lost).
        case revoked(id: UInt64, key: ListenKey)
        case tick(Timestamp)
        /// Graceful shutdown: close with 1001.
        case drain
        /// The transport failed (bad framing, message too large): close with `code`.
        case fail(CloseCode, String)
        /// The socket ended (close frame, reset, EOF).
        case ended
    }

    /// Work in session order: the session's actions, and engine unregistrations that belong
    /// between them.
    enum Step {
        case session(SessionAction)
        case action(Action)
    }

    let limits: Limits
    var sessionState: RealtimeSession
    var registrationTable: [ListenKey: Registration] = [:]
    /// The registration whose pushes go out as the loop's shared frame (an untagged listen the
    /// session holds), until the session or the registrations change; 0: none.
    var sharedRegistration: UInt64 = 0

    /// The session; any change to it forgets `sharedRegistration`.
    var session: RealtimeSession {
        _read { yield sessionState }
        _modify {
            sharedRegistration = 0
            yield &sessionState
        }
    }

    /// Engine registrations by listen key; any change forgets `sharedRegistration`.
    var registrations: [ListenKey: Registration] {
        _read { yield registrationTable }
        _modify {
            sharedRegistration = 0
            yield &registrationTable
        }
    }

    /// Done before anything else, even while busy (pongs, pings, the answer to a close).
    var urgent: [Action] = []
    /// `steps[stepIndex...]` are still to do.
    var steps: [Step] = []
    var stepIndex = 0
    /// A database action is in flight: session steps and events wait.
    var busy = false
    var backlog: [Event] = []
    var backlogHead = 0
    /// Messages in the backlog; reading pauses at `maxUnhandledFrames`.
    var backlogFrames = 0
    /// A read was held back (too many messages waiting, or fan-out behind).
    var readHeld = false
    /// A batch of engine deliveries is being handed over: no flush until it ends.
    var holdFlush = false
    /// Frames were written since the last flush.
    var unflushed = false
    /// The previous step was a `.send` (consecutive sends are one batch).
    var inBatch = false
    var slowConsumer = false
    /// The channel's writability, as the channel reports it.
    var writable = true
    /// A close frame went out (either side's): nothing more is sent.
    var closeSent = false
    /// `.finish` was returned.
    var finished = false
    /// Liveness: a frame arrived since the last tick (read on ticks only, so a frame costs no
    /// clock read); a ping went out since the peer was last heard; when that was (the tick that
    /// saw it, ms since 1970).
    var sawInbound = false
    var pingSent = false
    /// A tick found the timeout passed (the next one that still does drops the connection).
    var silenceSeen = false
    var lastHeard: Int64 = 0
    /// When a connection that has not authenticated, listened or registered an onDisconnect
    /// operation is closed if it stays silent until then (ms since 1970; 0: never).
    var authOrListenDeadline: Int64 = 0
    /// A request (anything but the SDK's keep-alive `0`) arrived since the last tick: the
    /// deadline moves on, so an anonymous client that only writes is not cut off between writes.
    var requestSinceTick = false

    init(session: RealtimeSession, limits: Limits) {
        self.sessionState = session
        self.limits = limits
    }

    // MARK: Inspection

    /// The session, for inspection.
    var currentSession: RealtimeSession { sessionState }

    /// A database action is in flight.
    var isBusy: Bool { busy }

    /// The engine registrations held, by listen key.
    var heldRegistrations: [ListenKey: Registration] { registrationTable }

    /// The connection holds at least one listen.
    var holdsListens: Bool { !registrationTable.isEmpty }

    // MARK: Socket events

    /// The upgrade is done: sends the hello and starts the timers.
    mutating func start(host: String, now: Timestamp) {
        let ms = now.millisecondsSince1970
        lastHeard = ms
        if let timeout = limits.authOrListenTimeout { authOrListenDeadline = ms + timeout.milliseconds }
        insertNext(session.connected(host: host, now: now).map(Step.session))
    }

    /// Any frame arrived (liveness).
    mutating func frameArrived() {
        sawInbound = true
    }

    /// A whole message from the client; the SDK's keep-alive (`0`) is not a request.
    mutating func received(_ message: [UInt8], now: Timestamp) {
        if message.count != 1 { requestSinceTick = true }
        receive(.message(message, now: now))
    }

    /// The client's ping: answered at once, unless a close frame went out.
    mutating func pingReceived(_ payload: [UInt8]) {
        guard !closeSent else { return }
        urgent.append(.sendPong(payload))
        unflushed = true
    }

    /// The client's close frame: answered (or, after our own close, the TCP connection ends),
    /// and the session ends.
    mutating func closeReceived(code: UInt16?) {
        if closeSent {
            urgent.append(.dropConnection)
        } else {
            closeSent = true
            urgent.append(.echoClose(code: code))
        }
        receive(.ended)
    }

    /// The transport failed: close with `code`.
    mutating func failed(_ code: CloseCode, _ reason: String) {
        receive(.fail(code, reason))
    }

    /// The socket is gone.
    mutating func ended() {
        receive(.ended)
    }

    /// Graceful shutdown: close with 1001.
    mutating func drain() {
        receive(.drain)
    }

    mutating func writabilityChanged(_ isWritable: Bool) {
        writable = isWritable
    }

    /// The channel wants to read: false (and the read is held) while too many messages wait.
    mutating func readRequested() -> Bool {
        if backlogFrames >= limits.maxUnhandledFrames {
            readHeld = true
            return false
        }
        return true
    }

    /// Fan-out is behind: the read is held until `fanoutCaughtUp` (or the backlog is worked off).
    mutating func holdReading() {
        readHeld = true
    }

    /// Fan-out caught up: true when a held read may go on now.
    mutating func fanoutCaughtUp() -> Bool {
        guard readHeld, backlogFrames < limits.maxUnhandledFrames else { return false }
        readHeld = false
        return true
    }

    // MARK: Engine deliveries

    /// A batch of deliveries begins: one flush for all of them, at `endDeliveries`.
    mutating func beginDeliveries() {
        holdFlush = true
    }

    mutating func deliver(_ update: EncodedUpdate, id: UInt64, key: ListenKey) {
        receive(.update(update, id: id, key: key))
    }

    /// The common push, decided without queueing a step: one for the listen whose pushes go out
    /// as the loop's shared frame (`sharedRegistration`), with nothing waiting before it and a
    /// channel that takes it. True: the caller writes the loop's shared frame (joined while a
    /// batch is handed over), as `deliver` would have it written. False: nothing changed, and
    /// the caller hands the push to `deliver`, which decides.
    mutating func takesSharedPush(_ update: EncodedUpdate, id: UInt64) -> Bool {
        guard id == sharedRegistration, id != 0, nothingWaits, urgent.isEmpty, writable, !closeSent,
            !slowConsumer, fitsOneFrame(update)
        else { return false }
        unflushed = true
        return true
    }

    mutating func revoked(id: UInt64, key: ListenKey) {
        receive(.revoked(id: id, key: key))
    }

    mutating func endDeliveries() {
        holdFlush = false
    }

    // MARK: Database outcomes

    /// The outcome of the database action for `requestID` (write, get, onDisconnect, auth).
    mutating func completed(_ outcome: RequestOutcome, for requestID: RequestID) {
        busy = false
        insertNext(session.completed(outcome, for: requestID).map(Step.session))
    }

    /// The outcome of a write that reached the connection behind the pushes of its commit
    /// (`NamespaceEngine.afterDeliveries`): the pushes that arrived while it was in flight go
    /// out first, then its answer, as Firebase's server sends them (the SDKs drop a pending
    /// write on its answer and show the server's data). Requests that arrived meanwhile stay
    /// behind the answer, in order.
    mutating func answered(_ outcome: RequestOutcome, for requestID: RequestID) {
        var leading: [Step] = []
        if backlogHead < backlog.count {
            var rest: [Event] = []
            for event in backlog[backlogHead...] {
                switch event {
                case .update, .revoked: leading += stepsAnswering(event)
                default: rest.append(event)
                }
            }
            backlog = rest
            backlogHead = 0
        }
        busy = false
        insertNext(leading + session.completed(outcome, for: requestID).map(Step.session))
    }

    /// A listen's outcome, with the engine registration it made (if any).
    mutating func listenCompleted(
        _ outcome: RequestOutcome,
        for requestID: RequestID,
        key: ListenKey,
        registration: Registration?
    ) {
        busy = false
        var next: [Step] = []
        if let registration {
            if finished {
                next.append(.action(.unregister(registration)))
            } else {
                registrations[key] = registration
            }
        }
        next += session.completed(outcome, for: requestID).map(Step.session)
        insertNext(next)
    }

    /// The listens a new identity may no longer read (their engine registrations are gone
    /// already): each is revoked.
    mutating func listensRechecked(unreadable keys: [ListenKey]) {
        busy = false
        var next: [Step] = []
        for key in keys {
            if let registration = registrations.removeValue(forKey: key) {
                next.append(.action(.unregister(registration)))
            }
            next += session.revokeListen(key).map(Step.session)
        }
        insertNext(next)
    }

    // MARK: Helpers

    /// No database action is in flight and no step or event is queued.
    var nothingWaits: Bool { !busy && stepIndex >= steps.count && backlogHead >= backlog.count }

    /// Queues `event`: handled now when nothing waits, else after what does.
    mutating func receive(_ event: Event) {
        if nothingWaits {
            insertNext(stepsAnswering(event))
            return
        }
        if case .message = event { backlogFrames += 1 }
        backlog.append(event)
    }

    /// Puts `next` before the steps still to do.
    mutating func insertNext(_ next: [Step]) {
        guard !next.isEmpty else { return }
        if stepIndex >= steps.count {
            steps = next
            stepIndex = 0
        } else {
            steps.insert(contentsOf: next, at: stepIndex)
        }
    }
}
