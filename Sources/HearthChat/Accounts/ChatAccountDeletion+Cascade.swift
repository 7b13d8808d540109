import HearthCore
import HearthFunctions

extension ChatAccountDeletion {
    /// The most paths one write of the cascade deletes (a user named in many lists takes several
    /// writes; each leaves the namespace consistent).
    static let maxPathsPerWrite = 500

    /// Removes what else the chat app keeps about `uid` (`../shared/CONTRACT.md`, "Details that
    /// are fixed"): `presence/$uid`, `contacts/$uid`, `devices/$uid` and `blocks/$uid` with the
    /// markers of its blocks; and, found by the lookup indexes `ContactLookup` and `BlockLookup`,
    /// the entries naming `uid` in others' contact and block lists, with those blocks' markers.
    /// Runs after the profile is gone, so nothing names `uid` anew while it reads (`blockUser`
    /// commits only while both profiles exist; the contacts rules accept registered users
    /// only). A block and its marker go in the same write. Idempotent: a retry finds what is left.
    func removeLists(of uid: String, in database: CallableDatabase) async throws(CallableError) {
        let batches = try await database.read { snapshot in
            Self.cascade(of: uid, in: snapshot)
        }
        for batch in batches { try await database.commit(batch) }
    }

    /// The deletions of the cascade, in writes of at most `maxPathsPerWrite` paths.
    static func cascade(of uid: String, in snapshot: CallableSnapshot) -> [[DatabaseUpdate]] {
        // Each group is written whole: a block with its marker.
        var groups: [[DatabaseUpdate]] = [
            [.delete(DataPath("presence", uid)), .delete(DataPath("contacts", uid)), .delete(DataPath("devices", uid))]
        ]
        let blocked = snapshot.childKeys(of: BlockList.list(of: uid)).map(\.string)
        // The markers first, the list last: a retry after a failure still finds the list.
        groups += blocked.map { [.delete(BlockList.marker(uid, $0))] }
        groups.append([.delete(BlockList.list(of: uid))])
        for location in snapshot.lookup(BlockLookup.name, term: uid) {
            let blocker = location.keys[1].string
            guard blocker != uid else { continue }
            groups.append(BlockList.unblocking(uid, by: blocker))
        }
        for location in snapshot.lookup(ContactLookup.name, term: uid) where location.keys[1].string != uid {
            groups.append([.delete(location)])
        }
        var batches: [[DatabaseUpdate]] = [[]]
        for group in groups {
            if batches[batches.count - 1].count + group.count > maxPathsPerWrite { batches.append([]) }
            batches[batches.count - 1] += group
        }
        return batches.filter { !$0.isEmpty }
    }
}
