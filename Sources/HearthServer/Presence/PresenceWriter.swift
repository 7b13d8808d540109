import HearthCore
import HearthDatabase

/// Writes presence transitions as the server itself: one multi-path update of `presence` per
/// namespace and batch, `presence/$uid` = `{state, lastChanged}` with `lastChanged` the commit's
/// server timestamp, through the namespace's writer like any write (listeners of every way in
/// see it; triggers run; rules do not apply).
///
/// A user whose account was deleted never gets an entry back: their `online` is not written,
/// their `offline` removes the entry instead (account deletion revokes the tokens that end the
/// user's connections), and any other `offline` is written only where `presence/$uid` still
/// exists when the write commits (an entry removed meanwhile stays removed).
struct PresenceWriter: Sendable {
    let database: Database
    /// Whether the account of a uid was deleted (the accounts' revocation state).
    let accountDeleted: @Sendable (String) -> Bool

    /// `presence`, where the entries are.
    static let location = DataPath(keys: [ChildKey("presence")])
    /// Attempts at a batch whose `offline` entries keep disappearing between the read and the
    /// commit (each attempt drops those found gone).
    static let attempts = 4

    /// Writes `transitions`, all of `namespace`. Returns what is now settled, to give to
    /// `PresenceTracker.written`: the `online` transitions written and every `offline` one
    /// (written, or for an entry that no longer exists).
    /// - Throws: `StoreError` or `CoreError` when the store refuses the write.
    func write(
        _ transitions: [PresenceLedger.Transition],
        namespace: String
    ) async throws -> [PresenceLedger.Transition] {
        let engine = try await database.engine(for: namespace)
        let onlineTransitions = transitions.filter { $0.online && !accountDeleted($0.key.uid) }
        let offlineTransitions = transitions.filter { !$0.online }
        let online = onlineTransitions.map(\.key.uid)
        // A deleted account's entry goes (one written back by a flush that raced the deletion
        // included); the others become offline where they still exist.
        let removed = offlineTransitions.map(\.key.uid).filter(accountDeleted)
        var offline = offlineTransitions.map(\.key.uid).filter { !accountDeleted($0) }
        let settled = onlineTransitions + offlineTransitions
        for _ in 0..<Self.attempts {
            if !offline.isEmpty {
                let candidates = offline
                offline = try await engine.readAsServer { snapshot in
                    candidates.filter { Self.exists($0, in: snapshot) }
                }
            }
            let entries =
                online.map { UpdateEntry(path: DataPath(keys: [ChildKey($0)]), value: Self.online) }
                + offline.map { UpdateEntry(path: DataPath(keys: [ChildKey($0)]), value: Self.offline) }
                + removed.map { UpdateEntry(path: DataPath(keys: [ChildKey($0)]), value: .null) }
            if entries.isEmpty { return settled }
            let write = Write(.update(Self.location, entries))
            let required = offline
            let precondition: (@Sendable (NamespaceSnapshot) -> Bool)?
            if required.isEmpty {
                precondition = nil
            } else {
                precondition = { @Sendable snapshot in required.allSatisfy { Self.exists($0, in: snapshot) } }
            }
            if try await engine.writeAsServer(write, precondition: precondition) != nil { return settled }
        }
        throw HearthServerError(
            "Presence of namespace '\(namespace)' not written: its entries kept being deleted while it was "
                + "written (\(Self.attempts) attempts); it is tried again at the next flush."
        )
    }

    /// Sets `presence/$uid` to `offline` for each of `uids` (the start's sweep), unconditionally.
    /// - Throws: `StoreError` or `CoreError` when the store refuses the write.
    static func writeOffline(_ uids: [String], in engine: NamespaceEngine) async throws {
        guard !uids.isEmpty else { return }
        let entries = uids.map { UpdateEntry(path: DataPath(keys: [ChildKey($0)]), value: offline) }
        _ = try await engine.writeAsServer(Write(.update(location, entries)))
    }

    static func exists(_ uid: String, in snapshot: NamespaceSnapshot) -> Bool {
        snapshot.node(at: location.child(ChildKey(uid))) != nil
    }

    /// `{state: "online", lastChanged: <server timestamp>}`.
    static let online = entry(state: "online")
    /// `{state: "offline", lastChanged: <server timestamp>}`.
    static let offline = entry(state: "offline")

    private static func entry(state: String) -> NewValue {
        // A constant document: it always parses.
        try! TreeParser.parse(
            #"{"state":"\#(state)","lastChanged":{".sv":"timestamp"}}"#,
            at: location.child(ChildKey("uid"))
        )
    }
}
