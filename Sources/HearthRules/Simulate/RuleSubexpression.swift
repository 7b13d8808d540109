public import HearthCore

/// One part of a rule the simulator evaluated, with its value and its parts: the tree of a rule's
/// evaluation, whole expression at the root (`RuleTraceEntry.evaluation`). Literals are not
/// listed (their value is their text).
public struct RuleSubexpression: Hashable, Sendable {
    /// The part's text as written in the rule (a long one shortened, ending with '…').
    public let text: String
    /// Where the text starts in the rules file.
    public let position: SourcePosition
    public let value: Value
    /// The parts of this one, in the order they are evaluated.
    public let children: [RuleSubexpression]

    /// The value of a part.
    public enum Value: Hashable, Sendable {
        /// Never evaluated: short-circuited by `&&`, `||` or `?:`, or skipped once an error
        /// decided its parent.
        case notEvaluated
        /// null, a boolean, a number, a string, or JSON: `auth` (`uid`, `provider`, `token`), a
        /// claim, a query's description, an array. Strings longer than
        /// `RuleSubexpression.maxStringLength` characters are shortened, ending with '…'.
        case data(JSONValue)
        /// A snapshot of a location: of the data as it is, or as it would be after the write
        /// (`newData` and what derives from it).
        case snapshot(DataPath, afterWrite: Bool)
        /// What `val()` returns for a location with children.
        case nodeWithChildren
        /// A regular expression.
        case regex(String)
        /// An evaluation error (a type error, a method on a value that does not have it, ...):
        /// it makes the rule false.
        case error(String)
        /// A value of a type JSON does not have (the storage rules' timestamp, duration, path,
        /// bytes, set, latlng, map_diff): the type's name and the value as JSON.
        case typed(String, JSONValue)

        public func hash(into hasher: inout Hasher) {
            hasher.combine(shown)
        }

        /// The value as the CLI and the console show it.
        public var shown: String {
            switch self {
            case .notEvaluated: return "not evaluated"
            case .data(let json):
                var out: [UInt8] = []
                JSONRenderer.render(json, into: &out)
                return String(decoding: out, as: UTF8.self)
            case .snapshot(let path, let afterWrite):
                return "snapshot of \(path)" + (afterWrite ? " after the write" : "")
            case .nodeWithChildren: return "a node with children"
            case .regex(let pattern): return pattern
            case .error(let message): return "error: \(message)"
            case .typed(_, let json):
                var out: [UInt8] = []
                JSONRenderer.render(json, into: &out)
                return String(decoding: out, as: UTF8.self)
            }
        }

        /// "string", "number", "boolean", "null", "object", "array", "snapshot", "regex", "error",
        /// "not evaluated" (the JSON answer's `type`), or a storage rules type ("timestamp", ...).
        public var typeName: String {
            switch self {
            case .notEvaluated: return "not evaluated"
            case .data(.null): return "null"
            case .data(.bool): return "boolean"
            case .data(.number): return "number"
            case .data(.string): return "string"
            case .data(.array): return "array"
            case .data(.object), .nodeWithChildren: return "object"
            case .snapshot: return "snapshot"
            case .regex: return "regex"
            case .error: return "error"
            case .typed(let type, _): return type
            }
        }
    }

    /// Strings in values are shortened past this many characters.
    public static let maxStringLength = 200
    /// Texts of parts are shortened past this many characters.
    public static let maxTextLength = 300
    /// At most this many values are recorded per simulation; the rules past it have no
    /// `evaluation` (and `RuleDecision.evaluationTruncated` is true).
    public static let limitPerSimulation = 1000
}
