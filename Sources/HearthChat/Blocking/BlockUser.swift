public import HearthCore
public import HearthFunctions

/// `blockUser {uid}` → `{}`: the caller blocks `uid`, a registered user other than themselves.
/// One atomic write sets `blocks/$caller/$uid` and the marker the messages rule reads
/// (`BlockList`); it commits only while both profiles exist, so a block never outlives an
/// account deletion that ran concurrently. Blocking again is `{}` and changes nothing.
///
/// What it does (`../shared/CONTRACT.md`): `uid` cannot start a chat with the caller, add them to
/// a group (both answer `NOT_FOUND`, as for an unregistered user) or post into their private
/// chat (the rules deny it). The caller still may (docs/design.md, "Blocking").
public struct BlockUser: Callable {
    public init() {}

    public var name: String { "blockUser" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"uid": "<uid>"}"#)
        let blocked = try data.uid("uid")
        guard blocked != uid else {
            throw .invalidArgument("'uid' is the caller '\(uid)': a user cannot block themselves.")
        }
        let names = try await RegisteredUsers.displayNames(of: [uid, blocked], in: request)
        guard names[blocked] != nil else { throw RegisteredUsers.notFound(blocked, field: "uid") }
        _ = try RegisteredUsers.callerName(uid, in: names)
        let profiles = [DataPath("users", uid), DataPath("users", blocked)]
        let committed = try await request.database.commit(BlockList.blocking(blocked, by: uid)) { snapshot in
            profiles.allSatisfy { snapshot.exists($0) }
        }
        // A profile went in between: the account is being deleted.
        guard committed else { throw RegisteredUsers.notFound(blocked, field: "uid") }
        return .object([])
    }
}
