/// A WebSocket close status code (RFC 6455 §7.4.1).
public struct CloseCode: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection is fulfilled (server shutdown, redirect).
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: the server is going away (draining); clients reconnect.
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: the client broke the protocol (malformed message, bad framing).
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1007: a text message that is not valid UTF-8 (RFC 6455 §8.1).
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: the client broke a policy (too many pending requests, idle too long).
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message was too large.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = CloseCode(rawValue: 1011)

    public var description: String { String(rawValue) }
}
