import Foundation

/// JSON equality regardless of member order and whitespace.
public enum JSONCompare {
    public static func canonical(_ text: String) -> String? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let again = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else { return nil }
        return String(decoding: again, as: UTF8.self)
    }

    public static func equal(_ a: String, _ b: String) -> Bool {
        guard let x = canonical(a), let y = canonical(b) else { return false }
        return x == y
    }
}

/// A JSON value as compact text with sorted keys, for comparisons.
public func canonicalJSON(_ value: Any?) -> String {
    guard let value, !(value is NSNull) else { return "null" }
    guard
        let data = try? JSONSerialization.data(
            withJSONObject: value,
            options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
        )
    else { return "\(value)" }
    return String(decoding: data, as: UTF8.self)
}
