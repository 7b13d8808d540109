internal import HearthCore

/// A value while a storage rule runs. Errors are values: they propagate through operators and
/// calls, `&&` and `||` absorb one when the other side decides, and a rule that ends in one
/// denies (firebase.google.com/docs/rules/rules-language#error_handling).
enum StorageRuleValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([StorageRuleValue])
    case set([StorageRuleValue])
    case map([String: StorageRuleValue])
    /// What `map.diff(other)` answers: the map before (`self`) and after (`other`).
    case mapDiff(before: [String: StorageRuleValue], after: [String: StorageRuleValue])
    case path([String])
    /// Seconds and nanoseconds since 1970-01-01T00:00:00Z.
    case timestamp(seconds: Int64, nanos: Int32)
    /// Nanoseconds.
    case duration(Int64)
    case latlng(Double, Double)
    case error(String)

    /// The names `is` takes.
    static let typeNames = [
        "bool", "bytes", "duration", "float", "int", "latlng", "list", "map", "map_diff", "number", "path",
        "set", "string", "timestamp",
    ]

    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .string: return "string"
        case .bytes: return "bytes"
        case .list: return "list"
        case .set: return "set"
        case .map: return "map"
        case .mapDiff: return "map_diff"
        case .path: return "path"
        case .timestamp: return "timestamp"
        case .duration: return "duration"
        case .latlng: return "latlng"
        case .error: return "error"
        }
    }

    func isType(_ name: String) -> Bool {
        switch name {
        case "number":
            if case .int = self { return true }
            if case .float = self { return true }
            return false
        default: return typeName == name
        }
    }

    var isError: Bool {
        if case .error = self { return true }
        return false
    }

    /// A JSON value as rules see it: a whole number is an `int`, other numbers `float`s.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = Self.number(n)
        case .string(let s): self = .string(s)
        case .array(let items): self = .list(items.map(StorageRuleValue.init(json:)))
        case .object(let members):
            var map: [String: StorageRuleValue] = [:]
            for (key, value) in members { map[key] = StorageRuleValue(json: value) }
            self = .map(map)
        }
    }

    /// A database node as rules see it (its priority left out); nil (no node) is `null`.
    init(node: Node?) {
        switch node {
        case nil: self = .null
        case .leaf(.bool(let b), _)?: self = .bool(b)
        case .leaf(.number(let n), _)?: self = Self.number(n)
        case .leaf(.string(let s), _)?: self = .string(s)
        case .children(let children, _)?:
            var map: [String: StorageRuleValue] = [:]
            for (key, child) in children { map[key.string] = StorageRuleValue(node: child) }
            self = .map(map)
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".unicodeScalars)
        var text = String.UnicodeScalarView()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(text)
    }

    static func number(_ n: Double) -> StorageRuleValue {
        if n.rounded() == n, abs(n) < 9.2e18 { return .int(Int64(n)) }
        return .float(n)
    }

    /// The value as JSON, for the simulator (timestamps as RFC 3339 text, durations as "1.5s").
    var json: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .number(Double(i))
        case .float(let f): return f.isFinite ? .number(f) : .string(String(f))
        case .string(let s): return .string(s)
        case .bytes(let b): return .string(StorageRuleValue.hex(b))
        case .list(let items), .set(let items): return .array(items.map(\.json))
        case .map(let map): return .object(map.keys.sorted().map { ($0, map[$0]!.json) })
        case .mapDiff(let before, let after):
            return .object([("before", StorageRuleValue.map(before).json), ("after", StorageRuleValue.map(after).json)])
        case .path(let segments): return .string("/" + segments.joined(separator: "/"))
        case .timestamp(let seconds, let nanos): return .string(StorageTime.text(seconds: seconds, nanos: nanos))
        case .duration(let nanos): return .string(StorageTime.durationText(nanos))
        case .latlng(let lat, let lng): return .object([("latitude", .number(lat)), ("longitude", .number(lng))])
        case .error(let message): return .string("error: \(message)")
        }
    }

    /// Short text for a trace or a message.
    var shown: String {
        switch self {
        case .string(let s): return "'\(s)'"
        case .error(let message): return "error: \(message)"
        default:
            var out: [UInt8] = []
            JSONRenderer.render(json, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }
}

extension StorageRuleValue {
    /// `==` of the language: numbers compare across int and float, lists in order, maps and sets
    /// by content; values of different types are not equal. Nil when either side is an error.
    static func equal(_ lhs: StorageRuleValue, _ rhs: StorageRuleValue) -> Bool? {
        switch (lhs, rhs) {
        case (.error, _), (_, .error): return nil
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.int(let a), .float(let b)): return Double(a) == b
        case (.float(let a), .int(let b)): return a == Double(b)
        case (.float(let a), .float(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.path(let a), .path(let b)): return a == b
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)): return s1 == s2 && n1 == n2
        case (.duration(let a), .duration(let b)): return a == b
        case (.latlng(let a1, let a2), .latlng(let b1, let b2)): return a1 == b1 && a2 == b2
        case (.list(let a), .list(let b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) {
                guard let same = equal(x, y) else { return nil }
                if !same { return false }
            }
            return true
        case (.set(let a), .set(let b)):
            return a.count == b.count && a.allSatisfy { x in b.contains { equal(x, $0) == true } }
        case (.map(let a), .map(let b)):
            guard a.count == b.count else { return false }
            for (key, x) in a {
                guard let y = b[key] else { return false }
                guard let same = equal(x, y) else { return nil }
                if !same { return false }
            }
            return true
        default: return false
        }
    }

    /// The order of `<`: numbers, strings, bytes, timestamps and durations among their own kind;
    /// nil for values that have no order between them.
    static func compare(_ lhs: StorageRuleValue, _ rhs: StorageRuleValue) -> Int? {
        func order<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return order(a, b)
        case (.int(let a), .float(let b)): return b.isNaN ? nil : order(Double(a), b)
        case (.float(let a), .int(let b)): return a.isNaN ? nil : order(a, Double(b))
        case (.float(let a), .float(let b)): return a.isNaN || b.isNaN ? nil : order(a, b)
        case (.string(let a), .string(let b)):
            return sequenceOrder(a.unicodeScalars.map(\.value), b.unicodeScalars.map(\.value))
        case (.bytes(let a), .bytes(let b)): return sequenceOrder(a, b)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)): return s1 != s2 ? order(s1, s2) : order(n1, n2)
        case (.duration(let a), .duration(let b)): return order(a, b)
        default: return nil
        }
    }

    static func sequenceOrder<T: Comparable>(_ a: [T], _ b: [T]) -> Int {
        if a == b { return 0 }
        return a.lexicographicallyPrecedes(b) ? -1 : 1
    }

    /// The set of `values` without repeats (`toSet()`, the set operations).
    static func distinct(_ values: [StorageRuleValue]) -> [StorageRuleValue] {
        var result: [StorageRuleValue] = []
        for value in values where !result.contains(where: { equal($0, value) == true }) { result.append(value) }
        return result
    }

    static func contains(_ values: [StorageRuleValue], _ value: StorageRuleValue) -> Bool {
        values.contains { equal($0, value) == true }
    }
}
