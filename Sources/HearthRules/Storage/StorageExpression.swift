/// An expression of the storage rules language (the Firebase Security Rules language shared by
/// Cloud Storage and Firestore), as parsed: what it is, where it starts and its source text.
struct StorageExpression: Sendable {
    indirect enum Kind: Sendable {
        case null
        case bool(Bool)
        case int(Int64)
        case float(Double)
        case string(String)
        case bytes([UInt8])
        case identifier(String)
        case member(StorageExpression, String)
        case index(StorageExpression, StorageExpression)
        case slice(StorageExpression, StorageExpression?, StorageExpression?)
        /// A call: the callee is an identifier (a function, `int`, `string`...) or a member
        /// (a method of a value, or of a namespace such as `math` or `timestamp`).
        case call(StorageExpression, [StorageExpression])
        case not(StorageExpression)
        case negate(StorageExpression)
        case binary(StorageOperator, StorageExpression, StorageExpression)
        case and(StorageExpression, StorageExpression)
        case or(StorageExpression, StorageExpression)
        case conditional(StorageExpression, StorageExpression, StorageExpression)
        case list([StorageExpression])
        case map([(StorageExpression, StorageExpression)])
        /// A path literal, `/users/$(request.auth.uid)/name`: literal segments and `$(...)`.
        case path([StoragePathPart])
        /// `value is type`.
        case isType(StorageExpression, String)
    }

    var kind: Kind
    var position: SourcePosition
    /// The expression's text as written (for the simulator's trace).
    var text: String
}

enum StoragePathPart: Sendable {
    case literal(String)
    case interpolation(StorageExpression)
}

enum StorageOperator: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case plus = "+"
    case minus = "-"
    case times = "*"
    case divide = "/"
    case modulo = "%"
    case `in` = "in"
}
