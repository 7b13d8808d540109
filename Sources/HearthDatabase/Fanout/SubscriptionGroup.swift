import HearthCore
import HearthProtocol

/// The subscribers of one (path, canonical query): they share every push. For a query, the
/// group also keeps the window its active subscribers show.
final class SubscriptionGroup {
    /// A reference, so that a push to every subscriber copies no entry.
    final class Entry {
        weak var subscriber: (any ListenSubscriber)?
        let registration: ListenRegistration
        /// Until its activation the subscriber's initial read is still under way: default
        /// listens buffer pushes (with their commit's sequence) to replay those the read missed.
        var isActive = false
        var buffered: [(sequence: UInt64, update: EncodedUpdate)] = []
        /// Default listens: the sequence its initial read saw. A commit at or below it is
        /// announced after the activation when the read saw it before its announcement (a
        /// clustered namespace's round is in LevelDB while its append is in flight): the
        /// subscriber already shows it, and gets no push for it.
        var seen: UInt64 = 0

        init(subscriber: any ListenSubscriber, registration: ListenRegistration) {
            self.subscriber = subscriber
            self.registration = registration
        }
    }

    let path: DataPath
    /// Nil for a default listen (all data) and a shallow one.
    let query: Query?
    /// The range of a shallow listen, which keeps a window as a query does.
    let shallow: ShallowRange?
    let identifier: QueryIdentifier
    var entries: [UInt64: Entry] = [:]

    /// Queries: the window active subscribers show, as of `windowSequence`; nil before the first
    /// subscriber is active.
    var window: QueryWindow?
    var windowSequence: UInt64 = 0
    /// Queries: the last commit that touched the group while it had no window.
    var touchedWithoutWindow: UInt64 = 0

    init(path: DataPath, query: Query?, shallow: ShallowRange? = nil, identifier: QueryIdentifier) {
        self.path = path
        self.query = query
        self.shallow = shallow
        self.identifier = identifier
    }

    var isDefault: Bool { query == nil && shallow == nil }

    /// Sends `update` to the active subscribers (and, for `sequence` given, buffers it for the
    /// pending ones); forgets subscribers that are gone and returns their registration ids.
    /// Adds the updates handed to subscribers to `delivered`.
    @discardableResult
    func send(_ update: EncodedUpdate, sequence: UInt64?, delivered: inout Int) -> [UInt64] {
        var gone: [UInt64] = []
        for (id, entry) in entries {
            guard let subscriber = entry.subscriber else {
                entries[id] = nil
                gone.append(id)
                continue
            }
            if entry.isActive {
                if let sequence, sequence <= entry.seen { continue }
                subscriber.deliver(update, for: entry.registration)
                delivered += 1
            } else if let sequence {
                entry.buffered.append((sequence, update))
            }
        }
        return gone
    }
}
