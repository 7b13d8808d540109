public import HearthCore

/// The `query` variable of a `.read` rule: how the client's query orders and limits. A plain
/// read (`plainRead`) is ordered by key, as Firebase answers it (observed: with no query,
/// `query.orderByKey == true && query.orderByValue == false` is true), and every bound and
/// limit is null.
public struct RuleQuery: Hashable, Sendable {
    public var orderByKey = false
    public var orderByPriority = false
    public var orderByValue = false
    /// The child path of `orderByChild`, or nil.
    public var orderByChild: String?
    public var startAt: LeafValue?
    public var endAt: LeafValue?
    public var equalTo: LeafValue?
    public var limitToFirst: Int?
    public var limitToLast: Int?

    public init() {}

    /// The `query` of a read without one.
    public static let plainRead: RuleQuery = {
        var query = RuleQuery()
        query.orderByKey = true
        return query
    }()

    /// The rules' view of a HearthCore `Query`. `equalTo` is a query whose start and end are the
    /// same inclusive value; it sets `equalTo` (and `startAt`/`endAt` to the same value, as the
    /// client sends it).
    public init(_ query: Query) {
        switch query.order {
        case .key: orderByKey = true
        case .priority: orderByPriority = true
        case .value: orderByValue = true
        case .child(let path): orderByChild = path.keys.map(\.string).joined(separator: "/")
        }
        startAt = query.start?.value
        endAt = query.end?.value
        if let start = query.start, let end = query.end, start.value == end.value, !query.startIsExclusive,
            !query.endIsExclusive
        {
            equalTo = start.value
        }
        switch query.limit {
        case .first(let n)?: limitToFirst = n
        case .last(let n)?: limitToLast = n
        case nil: break
        }
    }

    /// Reads the test-file form: `{"orderByChild": "owner", "equalTo": "u1", "limitToFirst": 10}`;
    /// `orderByKey`/`orderByValue`/`orderByPriority` are `true`.
    public init(json: JSONValue) throws(RuleInputError) {
        guard case .object(let members) = json else { throw RuleInputError("query must be an object") }
        func leaf(_ value: JSONValue, _ name: String) throws(RuleInputError) -> LeafValue? {
            switch value {
            case .null: return nil
            case .bool(let b): return .bool(b)
            case .number(let n): return .number(n)
            case .string(let s): return .string(s)
            default: throw RuleInputError("query.\(name) must be a string, number, boolean or null")
            }
        }
        for (key, value) in members {
            switch key {
            case "orderByKey": orderByKey = value.boolValue ?? false
            case "orderByPriority": orderByPriority = value.boolValue ?? false
            case "orderByValue": orderByValue = value.boolValue ?? false
            case "orderByChild":
                guard let s = value.stringValue else { throw RuleInputError("query.orderByChild must be a string") }
                orderByChild = s
            case "startAt": startAt = try leaf(value, key)
            case "endAt": endAt = try leaf(value, key)
            case "equalTo": equalTo = try leaf(value, key)
            case "limitToFirst", "limitToLast":
                guard let n = value.numberValue, n >= 0, n == n.rounded() else {
                    throw RuleInputError("query.\(key) must be a non-negative integer")
                }
                if key == "limitToFirst" { limitToFirst = Int(n) } else { limitToLast = Int(n) }
            default:
                throw RuleInputError("unknown query member '\(key)'")
            }
        }
    }
}
