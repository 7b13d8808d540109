/// What a trigger throws to refuse a write because of the data (a rule of the app's that the
/// write breaks): the whole write is refused and the client is told `message` (REST 400, wire
/// `failure`). Any other error a trigger throws is the server's own failure: the write is refused
/// as well, but the client is told only that the server failed, and the error is logged.
public struct WriteRefusal: Error, Sendable, CustomStringConvertible {
    /// What the client is told: name the offending field or value.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
