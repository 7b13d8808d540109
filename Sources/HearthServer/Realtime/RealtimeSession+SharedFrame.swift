import HearthProtocol

extension RealtimeSession {
    /// Whether the session is open and holds an untagged listen for `key`: then
    /// `push(encoded:for:)` sends an update's message unchanged (in one frame when it fits), and
    /// every such connection can write the same framed buffer. (`mutating` only so that the
    /// connection's stored session is read in place, not copied.)
    mutating func holdsUntaggedListen(_ key: ListenKey) -> Bool {
        guard phase == .open, let listen = listen(for: key) else { return false }
        return listen.tag == nil
    }
}
