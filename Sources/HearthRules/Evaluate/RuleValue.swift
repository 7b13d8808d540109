internal import HearthCore

/// Where a snapshot reads from: the data before the operation or after it.
enum RuleSourceKind: Sendable {
    case current
    case new
}

/// A `RuleDataSnapshot`: a location in one of the two trees, with the node when already known.
///
/// The location is `base` followed by `suffix`, kept apart so that `child('a/b')` with a literal
/// path shares the keys compiled into the rule instead of building a new path; the full path is
/// only put together when a data source is asked (or for `parent()`).
struct RuleSnapshot: Sendable {
    enum Resolved: Sendable {
        case unknown
        case known(Node?)
    }

    var source: RuleSourceKind
    var base: DataPath
    var suffix: [ChildKey]
    var resolved: Resolved

    init(source: RuleSourceKind, path: DataPath, resolved: Resolved) {
        self.source = source
        self.base = path
        self.suffix = []
        self.resolved = resolved
    }

    /// The same location, known to hold nothing: below a key no data can have ('a.b').
    var cannotHoldData: RuleSnapshot {
        var result = self
        result.resolved = .known(nil)
        return result
    }

    /// The location as one path.
    var path: DataPath {
        if suffix.isEmpty { return base }
        if base.isRoot { return DataPath(keys: suffix) }
        return DataPath(keys: base.keys + suffix)
    }
}

/// A value during evaluation. Errors are values: they propagate and make the rule false.
enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// What `val()` returns for a node with children (Firebase's sentinel, not an object).
    case object
    case snapshot(RuleSnapshot)
    case auth(RuleAuth)
    /// A JSON object or array from the auth token.
    case json(JSONValue)
    case query(RuleQuery)
    case regex(RuleRegex)
    case array([RuleValue])
    case error(String)

    init(_ leaf: LeafValue?) {
        switch leaf {
        case nil: self = .null
        case .bool(let b)?: self = .bool(b)
        case .number(let n)?: self = .number(n)
        case .string(let s)?: self = .string(s)
        }
    }

    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .array, .object: self = .json(json)
        }
    }

    init(priority: Priority?) {
        switch priority {
        case nil: self = .null
        case .number(let n)?: self = .number(n)
        case .string(let s)?: self = .string(s)
        }
    }

    /// For messages: "a number", "null", ...
    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .object: return "an object value"
        case .snapshot: return "a snapshot"
        case .auth: return "auth"
        case .json(let j): return j.arrayValue != nil ? "an array" : "an object"
        case .query: return "query"
        case .regex: return "a regular expression"
        case .array: return "an array"
        case .error: return "an error"
        }
    }
}
