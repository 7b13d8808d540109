/// A numbered request from the client: `{"r": id, "a": action, "b": body}`.
public struct ClientRequest: Sendable, Equatable {
    /// The request number the response must carry.
    public var id: RequestID
    /// What the client asks for, parsed and validated.
    public var action: ClientAction

    public init(id: RequestID, action: ClientAction) {
        self.id = id
        self.action = action
    }
}
