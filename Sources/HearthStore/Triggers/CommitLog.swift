import Dispatch
import HearthCore
import Logging
import Synchronization

/// The commit log of a namespace that has commit observers: every commit, written in the same
/// batch as the write itself, kept until every observer's cursor passed it. Each observer is
/// fed by a `CommitFollower` from its own cursor.
final class CommitLog: Sendable {
    let keys: KeySpace
    private let followers: [CommitFollower]

    init(namespace: String, keys: KeySpace, db: LevelDB, observers: [any CommitObserver], sequence: UInt64) throws {
        self.keys = keys
        let trimmer = CommitLogTrimmer(keys: keys, db: db, followers: observers.map(\.name))
        followers = try observers.map { observer in
            try CommitFollower(
                namespace: namespace,
                observer: observer,
                keys: keys,
                db: db,
                sequence: sequence,
                trimmer: trimmer
            )
        }
        // Commits logged before the last stop and not handled yet.
        for follower in followers { follower.wake() }
    }

    /// Puts `commit` into `batch`, which commits it.
    func append(_ commit: CommittedWrite, to batch: WriteBatch) {
        batch.put(keys.commitLogKey(commit.sequence), CommitLogCodec.encode(commit))
    }

    /// Tells every follower that commits reached LevelDB (they read them from the log).
    func committed() {
        for follower in followers { follower.wake() }
    }
}

/// Removes the log entries every follower handled.
final class CommitLogTrimmer: Sendable {
    private let keys: KeySpace
    private let db: LevelDB
    /// Each follower's cursor, and the sequence number the log was last trimmed through.
    private let cursors = Mutex<(handled: [String: UInt64], trimmed: UInt64)>(([:], 0))

    /// - Parameter followers: every follower's name; none is trimmed for until each reported.
    init(keys: KeySpace, db: LevelDB, followers: [String]) {
        self.keys = keys
        self.db = db
        cursors.withLock { state in
            for name in followers { state.handled[name] = 0 }
        }
    }

    /// Records that follower `name` handled everything through `sequence`; trims the log when
    /// the lowest cursor moved.
    func advanced(_ name: String, to sequence: UInt64) {
        let range = cursors.withLock { state -> (UInt64, UInt64)? in
            state.handled[name] = sequence
            let lowest = state.handled.values.min() ?? 0
            guard lowest > state.trimmed else { return nil }
            defer { state.trimmed = lowest }
            return (state.trimmed, lowest)
        }
        guard let (from, through) = range else { return }
        let batch = WriteBatch()
        let prefix = keys.commitLogPrefix
        try? db.withSnapshot { snapshot in
            let cursor = snapshot.makeIterator()
            cursor.seek(keys.commitLogKey(from))
            while cursor.hasPrefix(prefix) {
                let key = Array(cursor.keyBytes)
                if KeySpace.decodeSequence(key[prefix.count...]) > through { break }
                batch.delete(key)
                cursor.next()
            }
        }
        if batch.count > 0 { try? db.write(batch, sync: false) }
    }
}

/// Feeds one commit observer from the log, in order, from its durable cursor.
final class CommitFollower: Sendable {
    private let namespace: String
    private let observer: any CommitObserver
    private let keys: KeySpace
    private let db: LevelDB
    private let queue: DispatchQueue
    private let state = Mutex(State())
    private let trimmer: CommitLogTrimmer
    private static let logger = Logger(label: "hearth.commit-observer")
    /// How long a follower waits before handing over a commit its observer threw on.
    static let retryDelay = DispatchTimeInterval.milliseconds(500)

    private struct State {
        var handled: UInt64 = 0
        var scheduled = false
        var again = false
    }

    /// - Parameter sequence: the namespace's last commit; an observer without a cursor starts
    ///   after it.
    init(
        namespace: String,
        observer: any CommitObserver,
        keys: KeySpace,
        db: LevelDB,
        sequence: UInt64,
        trimmer: CommitLogTrimmer
    ) throws {
        self.namespace = namespace
        self.trimmer = trimmer
        self.observer = observer
        self.keys = keys
        self.db = db
        queue = DispatchQueue(label: "hearth.observer.\(namespace).\(observer.name)", qos: .utility)
        let key = keys.observerCursorKey(observer.name)
        let (stored, firstLogged) = try db.withSnapshot { snapshot -> ([UInt8]?, UInt64?) in
            let cursor = snapshot.makeIterator()
            cursor.seek(keys.commitLogPrefix)
            let first =
                cursor.hasPrefix(keys.commitLogPrefix)
                ? KeySpace.decodeSequence(Array(cursor.keyBytes)[keys.commitLogPrefix.count...]) : nil
            return (snapshot.get(key), first)
        }
        if let stored {
            state.withLock { $0.handled = KeySpace.decodeSequence(stored[...]) }
        } else {
            // No cursor: what the log holds (kept for another observer, or logged before this
            // one's first cursor was saved), else from the next commit on.
            let start = firstLogged.map { $0 - 1 } ?? sequence
            state.withLock { $0.handled = start }
            if start > 0 {
                let batch = WriteBatch()
                batch.put(key, NamespaceWriter.encode(start))
                try db.write(batch, sync: false)
            }
        }
        trimmer.advanced(observer.name, to: handled)
    }

    /// The last sequence number the observer handled (and whose cursor is saved).
    var handled: UInt64 { state.withLock { $0.handled } }

    /// Reads and hands over what the log holds after the cursor (on the follower's queue).
    func wake() {
        let start = state.withLock { state -> Bool in
            if state.scheduled {
                state.again = true
                return false
            }
            state.scheduled = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let outcome = feed()
            if outcome == .stopped {
                state.withLock { $0.scheduled = false }
                return
            }
            let failed = outcome == .failed
            let more = state.withLock { state -> Bool in
                if failed || !state.again {
                    state.scheduled = false
                    state.again = false
                    return false
                }
                state.again = false
                return true
            }
            if failed {
                queue.asyncAfter(deadline: .now() + Self.retryDelay) { self.wake() }
                return
            }
            if !more { return }
        }
    }

    private enum Outcome { case fed, failed, stopped }

    /// Hands over every logged commit after the cursor: `failed` when the observer threw (try
    /// again later), `stopped` when the log cannot be read (the store closed).
    private func feed() -> Outcome {
        let after = handled
        let prefix = keys.commitLogPrefix
        var entries: [(UInt64, [UInt8])] = []
        do {
            try db.withSnapshot { snapshot in
                let cursor = snapshot.makeIterator()
                cursor.seek(keys.commitLogKey(after + 1))
                while cursor.hasPrefix(prefix) {
                    let key = cursor.keyBytes
                    entries.append((KeySpace.decodeSequence(key[prefix.count...]), Array(cursor.valueBytes)))
                    cursor.next()
                }
            }
        } catch {
            return .stopped
        }
        guard !entries.isEmpty else { return .fed }
        var last = after
        var ok = true
        for (sequence, bytes) in entries {
            do {
                let commit = try CommitLogCodec.decode(bytes, sequence: sequence)
                try observer.committed(commit, namespace: namespace)
                last = sequence
            } catch {
                Self.logger.error(
                    "a commit observer failed; the commit is handed over again",
                    metadata: [
                        "hearth.observer": "\(observer.name)", "hearth.ns": "\(namespace)",
                        "hearth.sequence": "\(sequence)", "hearth.error": "\(error)",
                    ]
                )
                ok = false
                break
            }
        }
        if last > after {
            let batch = WriteBatch()
            batch.put(keys.observerCursorKey(observer.name), NamespaceWriter.encode(last))
            if (try? db.write(batch, sync: false)) != nil {
                state.withLock { $0.handled = last }
                trimmer.advanced(observer.name, to: last)
            }
        }
        return ok ? .fed : .failed
    }
}

extension KeySpace {
    static let commitLogTable = UInt8(ascii: "L")
    static let observerCursorTable = UInt8(ascii: "C")

    /// The commit log of the namespace, in sequence order.
    var commitLogPrefix: [UInt8] { KeySpace.prefix(KeySpace.commitLogTable, namespaceID) }

    func commitLogKey(_ sequence: UInt64) -> [UInt8] {
        commitLogPrefix + NamespaceWriter.encode(sequence)
    }

    /// The last sequence number the commit observer `name` handled.
    func observerCursorKey(_ name: String) -> [UInt8] {
        KeySpace.prefix(KeySpace.observerCursorTable, namespaceID) + Array(name.utf8)
    }

    static func decodeSequence(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
