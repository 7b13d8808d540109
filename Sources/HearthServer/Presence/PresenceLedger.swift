/// The bookkeeping of server-kept presence, without I/O or clock: how many signed-in realtime
/// connections each user holds in each namespace, what was last written for them, and which
/// users changed since the last flush. `PresenceTracker` guards one; `PresenceService` takes
/// its transitions and reports what it wrote.
///
/// A user's write follows the count: `online` when it leaves 0, `offline` when it returns to 0
/// — compared at flush time with what was last written, so a drop and a reconnect between two
/// flushes cost nothing and any number of connections of one user cost one write per real
/// transition.
struct PresenceLedger {
    /// One user in one namespace.
    struct Key: Hashable, Sendable {
        var namespace: String
        var uid: String
    }

    /// A write to make: `key`'s entry becomes `online` or `offline`.
    struct Transition: Hashable, Sendable {
        var key: Key
        var online: Bool
    }

    /// Live connections per user (absent: none).
    private(set) var connections: [Key: Int] = [:]
    /// The users whose entry was last written `online` by this process.
    private(set) var writtenOnline: Set<Key> = []
    /// Users whose count crossed 0 since they were last taken, in the order they first did.
    private var pending: [Key] = []
    private var pendingSet: Set<Key> = []
    /// After `closeAll`: the server is stopping, nothing more is counted or written.
    private(set) var isClosed = false

    /// Users whose count crossed 0 and are not yet taken.
    var pendingCount: Int { pendingSet.count }

    /// One more connection of `key`. Returns true when it made the first pending change (the
    /// flusher should wake).
    mutating func connect(_ key: Key) -> Bool {
        guard !isClosed else { return false }
        let count = connections[key, default: 0]
        connections[key] = count + 1
        return count == 0 ? mark(key) : false
    }

    /// One connection of `key` fewer. Returns true when it made the first pending change.
    mutating func disconnect(_ key: Key) -> Bool {
        guard let count = connections[key] else { return false }
        if count > 1 {
            connections[key] = count - 1
            return false
        }
        connections[key] = nil
        return isClosed ? false : mark(key)
    }

    /// Takes up to `limit` pending users and returns the writes they need now: none for a user
    /// whose count is back where the last write left it.
    mutating func takeTransitions(limit: Int) -> [Transition] {
        var transitions: [Transition] = []
        var taken = 0
        while taken < pending.count, transitions.count < limit {
            let key = pending[taken]
            taken += 1
            pendingSet.remove(key)
            let online = connections[key] != nil
            if online != writtenOnline.contains(key) { transitions.append(Transition(key: key, online: online)) }
        }
        pending.removeFirst(taken)
        return transitions
    }

    /// The transitions were written (or found unnecessary: see `PresenceWriter`).
    mutating func written(_ transitions: [Transition]) {
        for transition in transitions {
            if transition.online {
                writtenOnline.insert(transition.key)
            } else {
                writtenOnline.remove(transition.key)
            }
        }
    }

    /// The transitions could not be written: their users are pending again. Returns true when
    /// that made the first pending change.
    mutating func failed(_ transitions: [Transition]) -> Bool {
        var woke = false
        for transition in transitions where !isClosed && mark(transition.key) { woke = true }
        return woke
    }

    /// The server stops: every user last written `online` gets `offline`, and nothing is
    /// counted any more.
    mutating func closeAll() -> [Transition] {
        isClosed = true
        pending = []
        pendingSet = []
        return writtenOnline.map { Transition(key: $0, online: false) }
    }

    private mutating func mark(_ key: Key) -> Bool {
        guard pendingSet.insert(key).inserted else { return false }
        pending.append(key)
        return pending.count == 1
    }
}
