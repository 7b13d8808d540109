import HearthCore
import HearthProtocol
import HearthStore
import Logging

/// The fan-out state of one namespace: the subscription trie and each group's state. Only the
/// namespace's `DeliveryQueue` calls it, one batch at a time, so jobs never interleave even
/// while one awaits a read.
actor Fanout {
    let store: NamespaceStore
    let logger: Logger
    private var trie = SubscriptionTrie()
    private var groupOf: [UInt64: SubscriptionGroup] = [:]
    /// Query groups to re-run before the next job that is not a commit (and at the end of the
    /// batch): consecutive commits cost one query run per group.
    private var dirty: [SubscriptionGroup] = []
    private var dirtyIDs = Set<ObjectIdentifier>()
    /// What the fan-out reports (updates handed to listeners, once per batch of jobs).
    private let activity: NamespaceActivity
    /// Updates handed to listeners in the batch being processed.
    private var delivered = 0
    /// The listener count last reported.
    private var reportedListeners = 0

    init(store: NamespaceStore, logger: Logger, activity: NamespaceActivity = .init()) {
        self.store = store
        self.logger = logger
        self.activity = activity
    }

    func process(_ jobs: [FanoutJob]) async {
        for job in jobs {
            switch job {
            case .commit(let commit, let announcedAt):
                let before = delivered
                await handle(commit)
                if delivered > before { activity.fannedOut(.now - announcedAt) }
            case .register(let registration, let subscriber):
                register(registration, subscriber)
            case .activate(let id, let sequence, let window):
                await flushDirty()
                await activate(id, sequence: sequence, window: window)
            case .unregister(let id):
                unregister(id)
            case .after(let action):
                await flushDirty()
                action()
            }
        }
        await flushDirty()
        if delivered > 0 {
            activity.delivered(delivered)
            delivered = 0
        }
        if groupOf.count != reportedListeners {
            reportedListeners = groupOf.count
            activity.listeners(reportedListeners)
        }
    }

    /// The number of groups and of subscribers (tests, metrics).
    func counts() -> (groups: Int, subscribers: Int) {
        (Set(groupOf.values.map(ObjectIdentifier.init)).count, groupOf.count)
    }

    // MARK: Registrations

    private func register(_ registration: ListenRegistration, _ subscriber: any ListenSubscriber) {
        let group = trie.group(at: registration.path, identifier: registration.queryIdentifier) {
            SubscriptionGroup(
                path: registration.path,
                query: registration.query,
                shallow: registration.shallow,
                identifier: registration.queryIdentifier
            )
        }
        group.entries[registration.id] = SubscriptionGroup.Entry(subscriber: subscriber, registration: registration)
        groupOf[registration.id] = group
    }

    private func unregister(_ id: UInt64) {
        guard let group = groupOf.removeValue(forKey: id) else { return }
        group.entries[id] = nil
        if group.entries.isEmpty { trie.remove(group) }
    }

    /// The initial read of `id` saw every commit up to `sequence`: replay the later ones.
    private func activate(_ id: UInt64, sequence: UInt64, window initial: QueryWindow?) async {
        guard let group = groupOf[id], let entry = group.entries[id] else { return }
        if group.isDefault {
            let replay = entry.buffered.filter { $0.sequence > sequence }
            entry.buffered = []
            entry.seen = sequence
            entry.isActive = true
            if let subscriber = entry.subscriber {
                for item in replay { subscriber.deliver(item.update, for: entry.registration) }
                delivered += replay.count
            }
            return
        }
        guard let initial else { return }
        if group.window == nil {
            // The first active subscriber's read becomes the group's window.
            group.window = initial
            group.windowSequence = sequence
            group.entries[id]?.isActive = true
            if group.touchedWithoutWindow > sequence { await refresh(group) }
            return
        }
        if group.windowSequence == sequence {
            group.entries[id]?.isActive = true
            return
        }
        // The read and the group's window are from different snapshots: bring both to now.
        guard let outcome = await run(group) else {
            group.entries[id]?.isActive = true  // the store failed (logged); keep the listener
            return
        }
        if let window = group.window, outcome.sequence > group.windowSequence {
            send(window.changes(to: outcome.children), to: group)
        }
        let own = initial.changes(to: outcome.children)
        group.window = QueryWindow(outcome.children)
        group.windowSequence = outcome.sequence
        group.entries[id]?.isActive = true
        if !own.isEmpty, let subscriber = entry.subscriber {
            subscriber.deliver(Fanout.merge(own, at: group.path), for: entry.registration)
            delivered += 1
        }
    }

    // MARK: Commits

    private func handle(_ commit: CommittedWrite) async {
        let paths: [DataPath]
        switch commit.kind {
        case .set, .reset: paths = [.root]
        case .update(let entries): paths = entries.map(\.path)
        }
        let groups = trie.groups(at: commit.location, touching: paths)
        if groups.isEmpty { return }
        var defaults: [SubscriptionGroup] = []
        for group in groups {
            if group.isDefault {
                defaults.append(group)
            } else {
                markDirty(group, sequence: commit.sequence)
            }
        }
        if defaults.isEmpty { return }
        if case .reset = commit.kind {
            await resend(commit, to: defaults)
            return
        }
        guard let change = await effectiveChange(commit) else { return }
        var shared: EncodedUpdate?
        for group in defaults {
            guard let push = DefaultListenPush.make(for: group.path, change) else { continue }
            let update: EncodedUpdate
            if push.isShared, let shared {
                update = shared
            } else {
                update = EncodedUpdate(path: push.path, change: push.change)
                if push.isShared { shared = update }
            }
            prune(group, gone: group.send(update, sequence: commit.sequence, delivered: &delivered))
        }
    }

    /// An import rewrote `commit.location`: each default listen related to it gets the new value
    /// at the deeper of its path and the location.
    private func resend(_ commit: CommittedWrite, to groups: [SubscriptionGroup]) async {
        var updates: [DataPath: EncodedUpdate] = [:]
        for group in groups {
            let target = group.path.contains(commit.location) ? commit.location : group.path
            if updates[target] == nil {
                guard let node = await read({ $0.node(at: target) }) else { continue }
                updates[target] = EncodedUpdate(path: target, change: .set(node))
            }
            if let update = updates[target] {
                prune(group, gone: group.send(update, sequence: commit.sequence, delivered: &delivered))
            }
        }
    }

    /// The commit with priority writes replaced by the new value of the node that owns the
    /// priority (read now: the listener may briefly see later commits early, and those
    /// commits, replayed after, leave it at the right value).
    private func effectiveChange(_ commit: CommittedWrite) async -> EffectiveChange? {
        switch commit.kind {
        case .reset:
            return nil
        case .set(let node):
            guard commit.location.isPriorityPath, let owner = commit.location.parent else {
                return EffectiveChange(location: commit.location, kind: .set(node))
            }
            guard let value = await read({ $0.node(at: owner) }) else { return nil }
            return EffectiveChange(location: owner, kind: .set(value))
        case .update(let entries):
            guard entries.contains(where: { $0.path.isPriorityPath }) else {
                return EffectiveChange(location: commit.location, kind: .update(entries))
            }
            let base = commit.location
            var owners = entries.filter { $0.path.isPriorityPath }.map { $0.path.ownerPath }
            owners = owners.filter { owner in !owners.contains { $0 != owner && $0.contains(owner) } }
            let ownerPaths = owners
            guard let values = await read({ reader in ownerPaths.map { reader.node(at: base.appending($0)) } }) else {
                return nil
            }
            if let root = owners.firstIndex(of: .root) {
                return EffectiveChange(location: base, kind: .set(values[root]))
            }
            var result: [(path: DataPath, node: Node?)] = Array(zip(owners, values)).map { ($0.0, $0.1) }
            for entry in entries
            where !entry.path.isPriorityPath && !owners.contains(where: { $0.contains(entry.path) }) {
                result.append(entry)
            }
            return EffectiveChange(location: base, kind: .update(result))
        }
    }

    // MARK: Query groups

    private func markDirty(_ group: SubscriptionGroup, sequence: UInt64) {
        guard group.window != nil else {
            group.touchedWithoutWindow = max(group.touchedWithoutWindow, sequence)
            return
        }
        if sequence <= group.windowSequence { return }
        if dirtyIDs.insert(ObjectIdentifier(group)).inserted { dirty.append(group) }
    }

    private func flushDirty() async {
        while !dirty.isEmpty {
            let groups = dirty
            dirty = []
            dirtyIDs = []
            for group in groups where !group.entries.isEmpty { await refresh(group) }
        }
    }

    /// Re-runs the group's query and sends its active subscribers one merge: children that
    /// entered or changed, and children that left (null).
    private func refresh(_ group: SubscriptionGroup) async {
        guard let outcome = await run(group) else { return }
        if group.window != nil, outcome.sequence <= group.windowSequence { return }
        if let window = group.window {
            send(window.changes(to: outcome.children), to: group)
        }
        group.window = QueryWindow(outcome.children)
        group.windowSequence = outcome.sequence
    }

    private func send(_ changes: [(key: ChildKey, node: Node?)], to group: SubscriptionGroup) {
        if changes.isEmpty { return }
        prune(group, gone: group.send(Fanout.merge(changes, at: group.path), sequence: nil, delivered: &delivered))
    }

    static func merge(_ changes: [(key: ChildKey, node: Node?)], at path: DataPath) -> EncodedUpdate {
        EncodedUpdate(
            path: path,
            change: .merge(changes.map { UpdatedChild(path: DataPath(keys: [$0.key]), node: $0.node) })
        )
    }

    // MARK: Helpers

    private func prune(_ group: SubscriptionGroup, gone: [UInt64]) {
        if gone.isEmpty { return }
        for id in gone { groupOf[id] = nil }
        if group.entries.isEmpty { trie.remove(group) }
    }

    /// The group's window now: its query's children, or its shallow range's.
    private func run(_ group: SubscriptionGroup) async -> QueryRunner.Outcome? {
        let path = group.path
        let query = group.query
        let shallow = group.shallow
        do {
            return try await store.read { reader in
                if let shallow {
                    return QueryRunner.Outcome(
                        sequence: reader.sequence,
                        children: shallow.children(at: path, in: reader),
                        unindexed: false
                    )
                }
                guard let query else { return nil }
                return try QueryRunner.run(reader, path: path, query: query)
            }
        } catch {
            logger.error("Listen query failed", metadata: ["hearth.path": "\(path)", "hearth.error": "\(error)"])
            return nil
        }
    }

    /// Reads from a snapshot; nil (logged) when the store fails.
    private func read<T: Sendable>(_ body: @escaping @Sendable (NamespaceReader) throws -> T) async -> T? {
        do {
            return try await store.read(body)
        } catch {
            logger.error("Fan-out read failed", metadata: ["hearth.error": "\(error)"])
            return nil
        }
    }
}
