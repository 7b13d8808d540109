public import HearthCore
public import HearthFunctions

/// `unblockUser {uid}` → `{}`: the caller no longer blocks `uid`. One atomic write removes
/// `blocks/$caller/$uid` and its marker (`BlockList`). Idempotent: unblocking someone not
/// blocked, or no longer registered, is `{}` and changes nothing (as deleting absent data is);
/// only a malformed `uid` or the caller's own is refused (`INVALID_ARGUMENT`).
public struct UnblockUser: Callable {
    public init() {}

    public var name: String { "unblockUser" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"uid": "<uid>"}"#)
        let blocked = try data.uid("uid")
        guard blocked != uid else {
            throw .invalidArgument("'uid' is the caller '\(uid)': a user cannot block or unblock themselves.")
        }
        let paths = [BlockList.entry(uid, blocked), BlockList.marker(uid, blocked)]
        try await request.database.commit(BlockList.unblocking(blocked, by: uid)) { snapshot in
            paths.contains { snapshot.exists($0) }
        }
        return .object([])
    }
}
