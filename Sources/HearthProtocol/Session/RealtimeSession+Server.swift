public import HearthCore

extension RealtimeSession {
    /// New data for the listen `key` (from the fan-out engine): a set or a merge at `path`
    /// (the listen's path or below), tagged as the client asked. Returns no actions when the
    /// connection no longer holds the listen.
    public mutating func push(_ change: DataUpdate.Change, at path: DataPath, for key: ListenKey) -> [SessionAction] {
        guard phase == .open, let record = listens[key] else { return [] }
        var actions: [SessionAction] = []
        send(.dataUpdate(DataUpdate(path: path, change: change, tag: record.tag)), into: &actions)
        return actions
    }

    /// The client lost the right to read `key` (rules or identity changed): forgets the listen
    /// and tells the client (`a:"c"`), which cancels its listeners with `permission_denied`.
    public mutating func revokeListen(_ key: ListenKey) -> [SessionAction] {
        guard phase == .open, let record = listens.removeValue(forKey: key) else { return [] }
        var actions: [SessionAction] = []
        send(.listenRevoked(path: key.path, query: record.query), into: &actions)
        return actions
    }

    /// The credential is no longer valid: tells the client (`a:"ac"`) and continues anonymously.
    public mutating func revokeAuthentication(status: ResponseStatus, reason: String) -> [SessionAction] {
        guard phase == .open else { return [] }
        var actions: [SessionAction] = []
        send(.authRevoked(status: status, reason: reason), into: &actions)
        becomeAnonymous(into: &actions)
        return actions
    }

    /// Closes the connection from the server side (e.g. `.goingAway` while draining: the SDKs
    /// reconnect).
    public mutating func close(code: CloseCode, reason: String) -> [SessionAction] {
        guard phase != .closed else { return [] }
        let close = SessionAction.close(code: code, reason: Self.closeReason(reason))
        return [close, finish()]
    }

    /// Shuts the connection down for good (`s`): the SDKs stop reconnecting. Only for a database
    /// that is gone; to drain, use `close(code: .goingAway, ...)`.
    public mutating func shutdown(reason: String) -> [SessionAction] {
        guard phase == .open else { return close(code: .normal, reason: reason) }
        var actions: [SessionAction] = []
        send(.shutdown(reason: reason), into: &actions)
        return actions + close(code: .normal, reason: reason)
    }

    /// Sends the client to another host (`r`): it reconnects there.
    public mutating func redirect(to host: String) -> [SessionAction] {
        guard phase == .open else { return [] }
        var actions: [SessionAction] = []
        send(.reset(host: host), into: &actions)
        return actions + close(code: .normal, reason: "Redirected to \(host).")
    }
}
