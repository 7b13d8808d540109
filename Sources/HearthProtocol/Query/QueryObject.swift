public import HearthCore

/// The wire form of a query (`queryParamsGetQueryObject` in the SDK), converted both ways:
/// `sp`/`sn`/`sin` start value, name and inclusiveness, `ep`/`en`/`ein` the same for the end,
/// `l` the limit and `vf` the side it counts from (`l` left = first, `r` right = last), and `i`
/// the index (`.key`, `.value`, `.priority` or a child path; absent means priority).
public enum QueryObject {
    /// The `Query` a query object describes; `nil`, `null` and `{}` are the default query.
    /// - Throws: `ProtocolError` (`.invalidRequest`) naming the offending member.
    public static func query(from value: JSONValue?) throws -> Query {
        guard let value, value != .null else { return Query() }
        guard case .object = value else {
            throw ProtocolError.invalid(
                "Invalid query 'q': expected an object such as {\"i\":\".value\",\"l\":10,\"vf\":\"l\"}."
            )
        }
        var query = Query()
        if let index = value["i"] {
            query.order = try order(index)
        }
        if let start = value["sp"] {
            query.start = try bound(value: start, name: value["sn"], member: "sp", nameMember: "sn")
            query.startIsExclusive = !(try inclusive(value["sin"], member: "sin"))
        }
        if let end = value["ep"] {
            query.end = try bound(value: end, name: value["en"], member: "ep", nameMember: "en")
            query.endIsExclusive = !(try inclusive(value["ein"], member: "ein"))
        }
        if let limitValue = value["l"] {
            guard case .number(let n) = limitValue, n >= 0, n.rounded() == n, n <= Double(Int32.max) else {
                throw ProtocolError.invalid(
                    "Invalid query limit 'l': \(describe(limitValue)); expected a whole number from 0 to 2147483647."
                )
            }
            let fromLeft: Bool
            switch value["vf"] {
            case .string("l")?: fromLeft = true
            case .string("r")?: fromLeft = false
            // QueryParams.isViewFromLeft: `limit()` without a side anchors to the start when
            // only a start is set, else to the end.
            case nil, .null?: fromLeft = query.start != nil && query.end == nil
            case let other?:
                throw ProtocolError.invalid("Invalid query 'vf': \(describe(other)); expected \"l\" or \"r\".")
            }
            query.limit = fromLeft ? .first(Int(n)) : .last(Int(n))
        }
        return query
    }

    /// The query object the SDK sends for `query`, members in the SDK's order; `{}` for the
    /// default query.
    public static func object(for query: Query) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let start = query.start {
            members.append(("sp", json(start.value)))
            if let key = start.key { members.append(("sn", .string(key.string))) }
            members.append(("sin", .bool(!query.startIsExclusive)))
        }
        if let end = query.end {
            members.append(("ep", json(end.value)))
            if let key = end.key { members.append(("en", .string(key.string))) }
            members.append(("ein", .bool(!query.endIsExclusive)))
        }
        switch query.limit {
        case .first(let n)?:
            members.append(("l", .number(Double(n))))
            members.append(("vf", .string("l")))
        case .last(let n)?:
            members.append(("l", .number(Double(n))))
            members.append(("vf", .string("r")))
        case nil:
            break
        }
        switch query.order {
        case .priority: break
        case .key: members.append(("i", .string(".key")))
        case .value: members.append(("i", .string(".value")))
        case .child(let path): members.append(("i", .string(path.keys.map(\.string).joined(separator: "/"))))
        }
        return .object(members)
    }

    /// True when the query selects every child (no bounds, no limit): whatever its order, a
    /// listen on it receives the same data as the default query, so the SDKs send it as one.
    public static func loadsAllData(_ query: Query) -> Bool {
        query.start == nil && query.end == nil && query.limit == nil
    }

    // MARK: Members

    static func order(_ value: JSONValue) throws -> QueryOrder {
        guard case .string(let index) = value, !index.isEmpty else {
            throw ProtocolError.invalid(
                "Invalid query index 'i': \(describe(value)); expected \".key\", \".value\", \".priority\" or a child path."
            )
        }
        switch index {
        case ".key": return .key
        case ".value": return .value
        case ".priority": return .priority
        default:
            let path: DataPath
            do {
                path = try DataPath.parse(index)
            } catch let error as CoreError {
                throw ProtocolError.invalid("Invalid query index '\(index.prefix(100))': \(error.message)")
            }
            guard !path.isRoot else {
                throw ProtocolError.invalid(
                    "Invalid query index '\(index)': expected \".key\", \".value\", \".priority\" or a child path."
                )
            }
            return .child(path)
        }
    }

    static func bound(value: JSONValue, name: JSONValue?, member: String, nameMember: String) throws -> QueryBound {
        let leaf: LeafValue?
        switch value {
        case .null: leaf = nil
        case .bool(let b): leaf = .bool(b)
        case .number(let n): leaf = .number(n)
        case .string(let s): leaf = .string(s)
        case .array, .object:
            throw ProtocolError.invalid(
                "Invalid query bound '\(member)': \(describe(value)); expected null, a boolean, a number or a string."
            )
        }
        switch name {
        case nil, .null?:
            return QueryBound(value: leaf, key: nil)
        case .string(let s)?:
            if s != QueryEvaluator.minName && s != QueryEvaluator.maxName && !KeyValidator.isValid(s) {
                throw ProtocolError.invalid(
                    "Invalid query key name '\(nameMember)': '\(s.prefix(100))' is not a valid key; \(keyRule)"
                )
            }
            return QueryBound(value: leaf, key: ChildKey(s))
        case let other?:
            throw ProtocolError.invalid(
                "Invalid query key name '\(nameMember)': \(describe(other)); expected a string."
            )
        }
    }

    static func inclusive(_ value: JSONValue?, member: String) throws -> Bool {
        switch value {
        case nil, .null?: return true  // before startAfter/endBefore, SDKs sent no `sin`/`ein`
        case .bool(let b)?: return b
        case let other?:
            throw ProtocolError.invalid("Invalid query '\(member)': \(describe(other)); expected true or false.")
        }
    }

    static func json(_ value: LeafValue?) -> JSONValue {
        switch value {
        case nil: return .null
        case .bool(let b)?: return .bool(b)
        case .number(let n)?: return .number(n)
        case .string(let s)?: return .string(s)
        }
    }

    static let keyRule = "keys cannot be empty or contain '.', '#', '$', '[', ']', '/' or control characters."

    /// A short description of a JSON value for messages.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return "'" + JSONRenderer.numberString(n) + "'"
        case .string(let s): return "'\(s.prefix(60))'"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
