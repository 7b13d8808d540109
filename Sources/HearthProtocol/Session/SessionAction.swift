public import HearthCore

/// What the code running a `RealtimeSession` must do, in the order the session returns them.
/// Actions that name a `requestID` expect exactly one `completed(_:for:)` with that id; the
/// session holds back later requests until it arrives.
public enum SessionAction: Sendable, Equatable {
    /// Send one WebSocket text frame (UTF-8 JSON, or a frame count).
    case send([UInt8])
    /// Close the WebSocket with this code and reason (at most 123 bytes); the session is over.
    case close(code: CloseCode, reason: String)
    /// Register a listener for this connection (replacing one with the same `key`); complete
    /// with `.listening`, `.listeningUnchanged` or `.failed`.
    case listen(ListenRequest, requestID: RequestID, identity: AuthIdentity)
    /// Remove this connection's listener (no completion).
    case unlisten(ListenKey)
    /// Apply a write in the namespace's write order; complete with `.ok` or `.failed`
    /// (`.dataStale` when the hash does not match).
    case write(WriteRequest, requestID: RequestID, identity: AuthIdentity)
    /// Store a write to run when this connection closes (checked against rules now, as
    /// Firebase does); complete with `.ok` or `.failed`.
    case registerOnDisconnect(WriteRequest, requestID: RequestID, identity: AuthIdentity)
    /// Cancel this connection's onDisconnect writes at and below `path`; complete with `.ok`.
    case cancelOnDisconnect(DataPath, requestID: RequestID, identity: AuthIdentity)
    /// Verify a credential; complete with `.authenticated` or `.failed` (`.invalidToken`,
    /// `.expiredToken`).
    case authenticate(AuthRequest, requestID: RequestID)
    /// The connection now acts as `identity` (after `auth`, `unauth`, a refused credential or an
    /// expired token): re-check this connection's listeners and revoke those it may no longer
    /// read (no completion).
    case identityChanged(AuthIdentity)
    /// Read once; complete with `.value` or `.failed`.
    case get(GetRequest, requestID: RequestID, identity: AuthIdentity)
    /// Client statistics, for metrics (no completion).
    case stats(JSONValue)
    /// The connection is gone: run its onDisconnect writes and drop its listeners (these, and
    /// any a pending listen action registered). Emitted exactly once per session.
    case connectionClosed(listens: [ListenKey])
}
