import HearthAccounts
import HearthCore
import HearthFunctions

/// Who counts as a registered user of the chat app: an account and a profile at
/// `users/$uid` with a display name (`../shared/CONTRACT.md`, "Details that are fixed").
enum RegisteredUsers {
    /// The display names of `uids` (a profile without a string `displayName` counts as none),
    /// read in one snapshot; a uid without an account or profile is missing.
    /// - Parameter caller: when given, a user who blocks `caller` is missing too: to the
    ///   blocked, the blocker looks unregistered (`BlockList`).
    static func displayNames(
        of uids: [String],
        in request: CallRequest,
        seenBy caller: String? = nil
    ) async throws(CallableError) -> [String: String] {
        let withAccounts = uids.filter { request.accounts.account(uid: $0) != nil }
        return try await request.database.read { snapshot in
            var names: [String: String] = [:]
            for uid in withAccounts {
                if let caller, BlockList.blocks(uid, caller, in: snapshot) { continue }
                let profile = snapshot.node(at: DataPath("users", uid))
                if case .leaf(.string(let name), _)? = profile?.child(ChildKey("displayName")) { names[uid] = name }
            }
            return names
        }
    }

    /// The caller's display name.
    /// - Throws: `FAILED_PRECONDITION` when the caller has no profile yet.
    static func callerName(_ uid: String, in names: [String: String]) throws(CallableError) -> String {
        guard let name = names[uid] else {
            throw CallableError(
                .failedPrecondition,
                "The caller '\(uid)' has no profile: write users/\(uid) (with a displayName) first."
            )
        }
        return name
    }

    /// `NOT_FOUND` naming `uid` in `field`.
    static func notFound(_ uid: String, field: String) -> CallableError {
        CallableError(.notFound, "'\(field)' names '\(uid)', which is not a registered user.")
    }
}
