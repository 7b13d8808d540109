import Foundation
public import HearthStore

extension AccountsStore {
    /// Whether the accounts are a cluster's (`replicate(through:)`).
    public var isReplicated: Bool { database.isReplicated }

    /// Whether these accounts were a cluster node's copy (they hold a position in a cluster's
    /// log), whether or not they follow it now.
    public var isClusterCopy: Bool { database.file.get(AccountsDatabase.positionKey) != nil }

    /// Makes the accounts the cluster's: this node's database becomes a copy of `log` (seeding
    /// an empty log with the accounts a single node had), and every change goes through it.
    /// Revocations made on other nodes reach this node's registry (and its `onRevoke`
    /// handlers) when their batches are applied: at each `synchronize()`. Every
    /// `snapshotEntries` entries a node stores the accounts as the log's snapshot and the log
    /// drops what it no longer needs.
    public func replicate(
        through log: any SharedLog,
        snapshotEntries: Int64 = SharedLogFollower.defaultSnapshotEntries
    ) async throws(AccountsError) {
        try await database.replicate(through: log, snapshotEntries: snapshotEntries) { [self] changes in
            observeReplicated(changes)
        }
        revocations.removeAll()
        loadRevocations()
    }

    /// Applies what other nodes changed since the last call (a no-op outside a cluster). The
    /// accounts endpoints call it before each request, so a request sees every change
    /// acknowledged before it began; the node calls it a few times a second besides, for the
    /// revocations.
    public func synchronize() async throws(AccountsError) {
        try await database.synchronize()
    }

    /// Waits for a snapshot of the accounts' log being stored in the background (tests).
    public func waitForSnapshots() {
        database.waitForSnapshots()
    }

    /// Every account's and tombstone's revocation entry, from the database.
    func loadRevocations() {
        for account in database.allAccounts() {
            if let entry = RevocationRegistry.entry(for: account) { revocations.set(account.localId, entry) }
        }
        for (uid, tombstone) in database.tombstones() {
            revocations.set(uid, .init(validSince: tombstone.deletedAt, disabled: false, deleted: true))
        }
    }

    /// Another node's batch, applied: the registry follows its accounts and tombstones, and a
    /// revocation in it is told as the node that made it told it.
    private func observeReplicated(_ changes: [AccountsDatabase.ReplicatedChange]) {
        for change in changes {
            if change.key.hasPrefix("d/"), let bytes = change.after,
                let tombstone = try? JSONDecoder().decode(Tombstone.self, from: Data(bytes))
            {
                let uid = String(change.key.dropFirst(2))
                revocations.set(uid, .init(validSince: tombstone.deletedAt, disabled: false, deleted: true))
                revocations.publish(Revocation(uid: uid, validSince: tombstone.deletedAt, reason: .deleted))
                continue
            }
            guard change.key.hasPrefix("a/"), let bytes = change.after,
                let account = database.decodeAccount(bytes)
            else { continue }
            let before = change.before.flatMap(database.decodeAccount)
            let reason = Self.revocationReason(before: before, after: account)
            let grace =
                reason == .passwordChanged || reason == .emailChanged ? configuration.liveSessionGrace : .zero
            revocations.set(account.localId, RevocationRegistry.entry(for: account, liveGrace: grace))
            if let reason { revoked(account, reason: reason) }
        }
    }

    /// Why `after`'s earlier tokens stopped working, if a change from `before` revoked them.
    static func revocationReason(before: AccountRecord?, after: AccountRecord) -> RevocationReason? {
        guard let before else { return nil }
        if after.disabled && !before.disabled { return .disabled }
        guard after.validSince > before.validSince else { return nil }
        return after.email != before.email ? .emailChanged : .passwordChanged
    }
}
