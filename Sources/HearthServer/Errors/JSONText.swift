/// Minimal JSON text helpers for responses built by the server itself (errors, `{"name": ...}`).
enum JSONText {
    /// `s` as a JSON string literal, quotes included.
    static func quoted(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }

    /// Firebase's error body: `{\n  "error" : "..."\n}\n`.
    static func errorBody(_ message: String) -> String {
        "{\n  \"error\" : \(quoted(message))\n}\n"
    }
}
