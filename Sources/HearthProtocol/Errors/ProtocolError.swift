/// The one error type of HearthProtocol: a stable `code` to switch on and a one-sentence
/// `message` that names the offending value.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case malformedMessage
            case invalidRequest
            case messageTooLarge
            case invalidFrame
        }

        let kind: Kind

        /// The message is not JSON, or not a `{"t": ..., "d": ...}` envelope the server can answer;
        /// the connection is closed.
        public static let malformedMessage = Code(kind: .malformedMessage)
        /// A well-formed request (it has a request number) with an unknown action or an invalid
        /// body; it is answered with an error response and the connection stays open.
        public static let invalidRequest = Code(kind: .invalidRequest)
        /// A message larger than the configured limit; the connection is closed.
        public static let messageTooLarge = Code(kind: .messageTooLarge)
        /// A frame that breaks the framing rules (a frame count out of range); the connection is closed.
        public static let invalidFrame = Code(kind: .invalidFrame)

        public var description: String { "\(kind)" }
    }

    /// What kind of failure this is.
    public let code: Code
    /// One sentence for people, naming the offending value in single quotes.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension ProtocolError {
    static func malformed(_ message: String) -> ProtocolError {
        ProtocolError(.malformedMessage, message)
    }

    static func invalid(_ message: String) -> ProtocolError {
        ProtocolError(.invalidRequest, message)
    }
}
