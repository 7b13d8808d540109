import HearthCore
import HearthFunctions

/// `matchContacts` with `add: true`: the lookup and the additions to the caller's contact list
/// are one decision, committed in one write. The matches are found on a snapshot; the write
/// adds each match not yet in the list (`ContactList.newEntry`: added now, not a favorite) and
/// commits only while, on the writer, each of those still has a profile and no entry yet. So a
/// contact already present keeps its `addedAt` and `favorite` (also one added or changed
/// meanwhile), and nobody deleted meanwhile is added. When that no longer holds the lookup runs
/// again on a fresh snapshot. The quota was charged before (in memory); a failed commit adds
/// nothing.
enum ContactAddition {
    /// Runs `lookup` and adds its matches to `uid`'s contacts.
    /// - Returns: the matches (`{uid, ...}` objects) of the lookup that was committed.
    /// - Throws: `ABORTED` after `ChatChange.maxAttempts` decisions were overtaken; `INTERNAL`
    ///   when the store fails.
    static func commit(
        for uid: String,
        in database: CallableDatabase,
        lookup: @escaping @Sendable (CallableSnapshot) -> [JSONValue]
    ) async throws(CallableError) -> [JSONValue] {
        for _ in 0..<ChatChange.maxAttempts {
            let (matches, added) = try await database.read { snapshot in
                let matches = lookup(snapshot)
                let uids = matches.compactMap { $0["uid"]?.stringValue }
                return (matches, uids.filter { !snapshot.exists(ContactList.entry(of: uid, naming: $0)) })
            }
            let profiles = added.map { DataPath("users", $0) }
            let entries = added.map { ContactList.entry(of: uid, naming: $0) }
            guard !entries.isEmpty else { return matches }
            let committed = try await database.commit(entries.map { .set($0, ContactList.newEntry) }) { writer in
                profiles.allSatisfy { writer.exists($0) } && !entries.contains { writer.exists($0) }
            }
            if committed { return matches }
        }
        throw CallableError(
            .aborted,
            "The contacts of the caller '\(uid)' kept changing while 'add' ran (\(ChatChange.maxAttempts) attempts); call again."
        )
    }
}
