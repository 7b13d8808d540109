/// The one error type of HearthCore: a stable `code` to switch on and a one-sentence `message`
/// that names the offending value and says what is accepted.
public struct CoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare with the static members (`.invalidJSON`, ...).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case invalidJSON
            case unpairedSurrogate
            case invalidKey
            case invalidPath
            case invalidData
            case tooDeep
        }

        let kind: Kind

        /// Malformed JSON text (syntax, encoding, numbers out of range).
        public static let invalidJSON = Code(kind: .invalidJSON)
        /// A string or key written with an unpaired UTF-16 surrogate escape (`"\ud800"`): well-formed
        /// JSON (`JSON.stringify` writes a lone surrogate so) but not Unicode text, which is all
        /// Firebase stores. Bad data, not a broken message.
        public static let unpairedSurrogate = Code(kind: .unpairedSurrogate)
        /// A key that Firebase does not accept.
        public static let invalidKey = Code(kind: .invalidKey)
        /// A path that Firebase does not accept (other than a bad key).
        public static let invalidPath = Code(kind: .invalidPath)
        /// Well-formed JSON that is not valid Firebase data (`.value` misuse, bad `.priority`,
        /// bad server value, server values where none are allowed).
        public static let invalidData = Code(kind: .invalidData)
        /// A path deeper than 32 keys, or JSON nested deeper than 512 levels.
        public static let tooDeep = Code(kind: .tooDeep)

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
