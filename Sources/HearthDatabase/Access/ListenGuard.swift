import HearthCore
import HearthStore
import Logging
import Synchronization

/// Keeps the read permission of every live listen that rules apply to, and cancels a listen
/// the moment it no longer holds: after a commit that touched a path its permission depends
/// on (noted while evaluating it), or after the namespace's rules change.
///
/// A commit is checked on the store's writer, right after it is announced to the fan-out and
/// before any later commit is, against the latest state; so no commit after the one that
/// revoked access is delivered to the listen.
final class ListenGuard: Sendable {
    struct Guarded: Sendable {
        let registration: ListenRegistration
        /// Weak, as in the fan-out: a subscriber that is gone is forgotten.
        weak var subscriber: (any ListenSubscriber)?
        var caller: Caller
        var dependencies: [DataPath]
    }

    private struct State {
        var listens: [UInt64: Guarded] = [:]
        var trie = DependencyTrie()
        /// Listens between their permission check and `add`, and whether a commit came meanwhile.
        var pending: [UInt64: Bool] = [:]
    }

    private let state = Mutex(State())
    private let rules: NamespaceRules
    private let store: NamespaceStore
    private let delivery: DeliveryQueue
    private let logger: Logger

    init(rules: NamespaceRules, store: NamespaceStore, delivery: DeliveryQueue, logger: Logger) {
        self.rules = rules
        self.store = store
        self.delivery = delivery
        self.logger = logger
    }

    var count: Int { state.withLock { $0.listens.count } }

    /// Call before a listen's permission check: commits from here on are noted for it.
    func begin(id: UInt64) {
        state.withLock { $0.pending[id] = false }
    }

    /// Starts guarding a listen whose permission was granted reading `dependencies` (after
    /// `begin`). Returns false when a commit came between `begin` and now and the permission no
    /// longer holds: the listen is then not guarded and nobody is told (the caller refuses it).
    func add(_ guarded: Guarded) -> Bool {
        let dependencies = Self.unique(guarded.dependencies)
        let raced = state.withLock { state -> Bool in
            var guarded = guarded
            guarded.dependencies = dependencies
            state.listens[guarded.registration.id] = guarded
            state.trie.insert(guarded.registration.id, at: dependencies)
            return state.pending.removeValue(forKey: guarded.registration.id) ?? false
        }
        guard raced, !guarded.caller.bypassesRules else { return true }
        let revoked = (try? store.readSynchronously { reader in evaluate([guarded], reader: reader, notify: false) })
        return revoked?.isEmpty ?? false
    }

    /// Stops guarding a listen (unlistened, refused, or its connection closed).
    func remove(id: UInt64) {
        state.withLock { state in
            state.pending[id] = nil
            guard let old = state.listens.removeValue(forKey: id) else { return }
            state.trie.remove(id, at: old.dependencies)
        }
    }

    /// Whether the listen is guarded (not revoked, not removed).
    func contains(id: UInt64) -> Bool {
        state.withLock { $0.listens[id] != nil }
    }

    /// Re-checks the listen for `caller` (a new credential) against the latest state; keeps it
    /// guarded with the new caller when allowed, else revokes it. Returns whether it is allowed.
    func recheck(id: UInt64, as caller: Caller) throws -> Bool {
        guard var guarded = state.withLock({ $0.listens[id] }) else { return false }
        guarded.caller = caller
        return try store.readSynchronously { reader in evaluate([guarded], reader: reader).isEmpty }
    }

    /// Re-checks every guarded listen (the rules changed).
    func recheckAll() throws {
        let all = state.withLock { Array($0.listens.values) }
        guard !all.isEmpty else { return }
        let revoked = try store.readSynchronously { reader in evaluate(all, reader: reader) }
        if !revoked.isEmpty {
            logger.info("listens revoked by a rules change", metadata: ["hearth.listens": "\(revoked.count)"])
        }
    }

    /// Called on the store's writer for each commit, after the fan-out has it.
    func committed(_ commit: CommittedWrite) {
        let affected = state.withLock { state -> [Guarded] in
            for id in state.pending.keys { state.pending[id] = true }
            guard !state.trie.isEmpty else { return [] }
            var ids = Set<UInt64>()
            switch commit.kind {
            case .set, .reset:
                state.trie.affected(by: Self.owner(commit.location), into: &ids)
            case .update(let changes):
                for change in changes {
                    state.trie.affected(by: Self.owner(commit.location.appending(change.path)), into: &ids)
                }
            }
            return ids.compactMap { state.listens[$0] }
        }
        guard !affected.isEmpty else { return }
        do {
            _ = try store.readSynchronously { reader in evaluate(affected, reader: reader) }
        } catch {
            logger.error("re-checking listens failed", metadata: ["hearth.error": "\(error)"])
        }
    }

    /// Evaluates each listen's read permission in `reader`'s snapshot: refreshes the
    /// dependencies of those still allowed and revokes the rest. Returns the revoked ones.
    private func evaluate(_ listens: [Guarded], reader: NamespaceReader, notify: Bool = true) -> [Guarded] {
        var revoked: [Guarded] = []
        for var guarded in listens {
            let recorder = ReadLog()
            let registration = guarded.registration
            let allowed =
                guarded.subscriber != nil
                && rules.canRead(
                    guarded.caller,
                    path: registration.path,
                    query: registration.query,
                    reader: reader,
                    recorder: recorder
                )
            if allowed {
                guarded.dependencies = Self.unique(recorder.paths)
                state.withLock { state in
                    guard let old = state.listens[registration.id] else { return }
                    state.trie.remove(registration.id, at: old.dependencies)
                    state.listens[registration.id] = guarded
                    state.trie.insert(registration.id, at: guarded.dependencies)
                }
            } else {
                let removed = state.withLock { state -> Bool in
                    guard let old = state.listens.removeValue(forKey: registration.id) else { return false }
                    state.trie.remove(registration.id, at: old.dependencies)
                    return true
                }
                if removed {
                    if notify { revoke(guarded) }
                    revoked.append(guarded)
                }
            }
        }
        return revoked
    }

    /// Unregisters the listen (no delivery for it after this point of the delivery queue) and
    /// tells its subscriber once the deliveries queued before are out.
    private func revoke(_ guarded: Guarded) {
        delivery.enqueue(.unregister(id: guarded.registration.id))
        let delivery = self.delivery
        Task {
            await delivery.barrier()
            guarded.subscriber?.revoked(guarded.registration)
        }
    }

    /// A `.priority` write changes its parent.
    private static func owner(_ path: DataPath) -> DataPath {
        path.last?.string == ".priority" ? (path.parent ?? path) : path
    }

    private static func unique(_ paths: [DataPath]) -> [DataPath] {
        var seen = Set<DataPath>()
        return paths.filter { seen.insert($0).inserted }
    }
}
