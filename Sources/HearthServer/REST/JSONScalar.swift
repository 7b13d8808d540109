import Foundation
import HearthCore

/// A JSON-encoded scalar from a query parameter: `"a"`, `5`, `true`, `null`.
enum JSONScalar: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)

    /// Parses one JSON scalar; nil for anything else (objects, arrays, garbage).
    static func parse(_ text: String) -> JSONScalar? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "null": return .null
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: break
        }
        let data = Data(trimmed.utf8)
        if trimmed.hasPrefix("\"") {
            return (try? JSONDecoder().decode(String.self, from: data)).map(JSONScalar.string)
        }
        guard let first = trimmed.unicodeScalars.first, first == "-" || ("0"..."9").contains(first) else {
            return nil
        }
        guard let number = try? JSONDecoder().decode(Double.self, from: data), number.isFinite else { return nil }
        return .number(number)
    }

    /// The value as a leaf (nil for null).
    var leaf: LeafValue? {
        switch self {
        case .null: return nil
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .string(let s): return .string(s)
        }
    }
}
