import HearthCore
import HearthProtocol
import Synchronization

/// Counts the signed-in realtime connections of each user in the presence namespaces, for
/// `PresenceService` to write: WebSocket sessions call `join` when their identity becomes a
/// user's and `leave` when it stops being one or the connection ends; SSE streams hold a seat
/// while they stream. Cheap and non-blocking (a lock around `PresenceLedger`), called from
/// event loops and stream tasks.
final class PresenceTracker: Sendable {
    /// One counted connection of a user in a namespace, to hand back to `leave`.
    struct Seat: Hashable, Sendable {
        let key: PresenceLedger.Key
    }

    private let namespaces: Set<String>
    private let ledger = Mutex(PresenceLedger())
    /// Wakes the flusher when the first change arrives after a flush (at most one waits).
    private let wakeups: AsyncStream<Void>.Continuation
    /// What the flusher waits on.
    let wakes: AsyncStream<Void>

    init(namespaces: Set<String>) {
        self.namespaces = namespaces
        (wakes, wakeups) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether presence is kept at all.
    var isEnabled: Bool { !namespaces.isEmpty }

    /// Counts a connection of `identity` to `namespace` when it is a user's own (an ID token;
    /// not the admin, an admin acting as a user, or anonymous) in a presence namespace, and its
    /// uid can be a database key. Returns the seat to give back, or nil when nothing was counted.
    func join(_ identity: AuthIdentity, namespace: String) -> Seat? {
        guard let uid = identity.signedInUID, namespaces.contains(namespace), Self.isUsable(uid) else { return nil }
        let key = PresenceLedger.Key(namespace: namespace, uid: uid)
        if ledger.withLock({ $0.connect(key) }) { wakeups.yield() }
        return Seat(key: key)
    }

    /// The connection holding `seat` ended or lost its user.
    func leave(_ seat: Seat) {
        if ledger.withLock({ $0.disconnect(seat.key) }) { wakeups.yield() }
    }

    /// The user the seat counts for.
    func uid(of seat: Seat) -> String { seat.key.uid }

    // MARK: For the flusher

    /// Up to `limit` writes that pending users need now.
    func takeTransitions(limit: Int) -> [PresenceLedger.Transition] {
        ledger.withLock { $0.takeTransitions(limit: limit) }
    }

    func written(_ transitions: [PresenceLedger.Transition]) {
        ledger.withLock { $0.written(transitions) }
    }

    func failed(_ transitions: [PresenceLedger.Transition]) {
        if ledger.withLock({ $0.failed(transitions) }) { wakeups.yield() }
    }

    /// The server stops: the flusher's wait ends, and every user written `online` is returned
    /// to be written `offline`.
    func closeAll() -> [PresenceLedger.Transition] {
        wakeups.finish()
        return ledger.withLock { $0.closeAll() }
    }

    /// Ends the flusher's wait (graceful shutdown).
    func stopWaking() {
        wakeups.finish()
    }

    /// Connections counted now, by user (tests, metrics).
    func connectionCount(uid: String, namespace: String) -> Int {
        ledger.withLock { $0.connections[PresenceLedger.Key(namespace: namespace, uid: uid)] ?? 0 }
    }

    /// A uid that can name `presence/$uid`: a valid database key.
    static func isUsable(_ uid: String) -> Bool {
        KeyValidator.isValid(uid)
    }
}
