/// A generic JSON value, for documents that are not database data (rules files, request
/// bodies of the auth and functions APIs). Objects keep their members in document order,
/// duplicates included (`subscript` reads the last one, as JSON parsers conventionally do).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The value of the last member named `key` when this is an object, else nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    /// The string when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number when this is a number.
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The Boolean when this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members when this is an object.
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// A short description of the kind of value, for messages ("an array", "the number 3").
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number: return "a number"
        case .string(let s): return "the string '\(s.prefix(40))'"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
