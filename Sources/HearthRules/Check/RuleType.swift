/// The static type of an expression, as far as the checker knows it.
enum RuleType: Equatable {
    case boolean
    case number
    case string
    case null
    case snapshot
    case auth
    /// A JSON object (`auth.token`).
    case map
    /// What `val()` returns: a string, number, boolean, null, or the object sentinel.
    case primitive
    /// Anything (a token claim, a query bound).
    case dynamic
    case query
    case regex
    case array
    /// After an error: checked no further, so one mistake gives one diagnostic.
    case unknown

    /// True when the type is exactly known (a mismatch is certain, not just possible).
    var isKnown: Bool {
        switch self {
        case .primitive, .dynamic, .unknown: return false
        default: return true
        }
    }

    var name: String {
        switch self {
        case .boolean: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .null: return "null"
        case .snapshot: return "a snapshot"
        case .auth: return "auth"
        case .map: return "an object"
        case .primitive: return "a value"
        case .dynamic: return "a value"
        case .query: return "query"
        case .regex: return "a regular expression"
        case .array: return "an array"
        case .unknown: return "a value"
        }
    }

    /// Could a value of this type be a string at run time?
    var maybeString: Bool { self == .string || !isKnown }
    var maybeNumber: Bool { self == .number || !isKnown }
    var maybeBoolean: Bool { self == .boolean || !isKnown }
}
