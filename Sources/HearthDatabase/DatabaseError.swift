/// The one error type of HearthDatabase (beyond the `StoreError`s it passes on): a stable
/// `code` to switch on and a one-sentence `message` that says what to do.
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case tooManyOnDisconnectOperations
            case invalidRules
            case unreadableRules
            case invalidSeed
            case invalidConfiguration
        }

        let kind: Kind

        /// A connection already holds as many onDisconnect operations as it may.
        public static let tooManyOnDisconnectOperations = Code(kind: .tooManyOnDisconnectOperations)
        /// A rules document does not compile; the message holds every diagnostic rendered.
        public static let invalidRules = Code(kind: .invalidRules)
        /// A rules file cannot be read (or is not UTF-8).
        public static let unreadableRules = Code(kind: .unreadableRules)
        /// The seed file cannot be read or is not JSON the database takes.
        public static let invalidSeed = Code(kind: .invalidSeed)
        /// A setting of the database's configuration cannot work; the message names it.
        public static let invalidConfiguration = Code(kind: .invalidConfiguration)

        public var description: String { "\(kind)" }
    }

    /// What kind of failure this is.
    public let code: Code
    /// One sentence for people.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func tooManyOnDisconnectOperations(limit: Int) -> DatabaseError {
        DatabaseError(
            .tooManyOnDisconnectOperations,
            "Too many onDisconnect operations on this connection: at most \(limit) may be registered; "
                + "cancel some (onDisconnect().cancel()) before registering more."
        )
    }

    static func invalidRules(_ message: String) -> DatabaseError {
        DatabaseError(.invalidRules, message)
    }

    static func unreadableRules(_ message: String) -> DatabaseError {
        DatabaseError(.unreadableRules, message)
    }
}
