import HearthCore
import HearthFunctions

/// The fields of a chat callable's `data`, read with the contract's refusals: every problem is
/// `INVALID_ARGUMENT` naming the field and the value.
struct CallData {
    let fields: JSONValue
    /// How to call the function, for the message when `data` is not an object.
    let usage: String

    init(_ data: JSONValue, usage: String) throws(CallableError) {
        guard case .object = data else {
            throw .invalidArgument("The data must be an object, \(usage).")
        }
        fields = data
        self.usage = usage
    }

    /// A uid: a non-empty string that is a valid database key.
    func uid(_ field: String) throws(CallableError) -> String {
        guard let value = fields[field] else { throw .invalidArgument("'\(field)' is required, \(usage).") }
        return try Self.uid(value, field: field)
    }

    static func uid(_ value: JSONValue, field: String) throws(CallableError) -> String {
        guard let uid = value.stringValue else {
            throw .invalidArgument("'\(field)' must be a uid string, not \(describe(value)).")
        }
        guard KeyValidator.isValid(uid) else {
            throw .invalidArgument("'\(field)' has the uid '\(uid.prefix(128))', which is not a valid user id.")
        }
        return uid
    }

    /// The id of a chat or message: a non-empty string that is a valid database key.
    func key(_ field: String, of what: String) throws(CallableError) -> String {
        guard let value = fields[field] else { throw .invalidArgument("'\(field)' is required, \(usage).") }
        guard let key = value.stringValue else {
            throw .invalidArgument("'\(field)' must be a \(what) string, not \(Self.describe(value)).")
        }
        guard KeyValidator.isValid(key) else {
            throw .invalidArgument("'\(field)' has the value '\(key.prefix(128))', which is not a valid \(what).")
        }
        return key
    }

    /// An optional boolean (absent or null: `false`).
    func optionalBool(_ field: String) throws(CallableError) -> Bool {
        guard let value = fields[field], value != .null else { return false }
        guard let bool = value.boolValue else {
            throw .invalidArgument("'\(field)' must be true or false, not \(Self.describe(value)).")
        }
        return bool
    }

    /// A required string.
    func string(_ field: String) throws(CallableError) -> String {
        guard let value = fields[field] else { throw .invalidArgument("'\(field)' is required, \(usage).") }
        guard let string = value.stringValue else {
            throw .invalidArgument("'\(field)' must be a string, not \(Self.describe(value)).")
        }
        return string
    }

    /// An optional string (absent or null: nil) of at most `maxLength` UTF-16 code units.
    func optionalString(_ field: String, maxLength: Int) throws(CallableError) -> String? {
        guard let value = fields[field], value != .null else { return nil }
        guard let string = value.stringValue else {
            throw .invalidArgument("'\(field)' must be a string, not \(Self.describe(value)).")
        }
        guard string.utf16.count <= maxLength else {
            throw .invalidArgument("'\(field)' is \(string.utf16.count) characters long; the limit is \(maxLength).")
        }
        return string
    }

    /// A required array.
    func array(_ field: String) throws(CallableError) -> [JSONValue] {
        guard let value = fields[field] else { throw .invalidArgument("'\(field)' is required, \(usage).") }
        guard let array = value.arrayValue else {
            throw .invalidArgument("'\(field)' must be an array, not \(Self.describe(value)).")
        }
        return array
    }

    /// A short description of a value for messages.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return "the number \(n)"
        case .string(let s): return "the string '\(s.prefix(64))'"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
