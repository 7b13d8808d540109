// Every message HearthCore produces, in one place. One sentence each: what failed, the value in
// single quotes, what is accepted.

extension CoreError {
    static let keyRule = "keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."

    static func keyForbiddenCharacter(_ key: String, in path: String) -> CoreError {
        CoreError(.invalidKey, "Invalid key '\(key)' in path '\(path)': \(keyRule)")
    }

    static func keyEmpty(in path: String) -> CoreError {
        CoreError(.invalidKey, "Invalid key '' in path '\(path)': keys must be non-empty strings.")
    }

    static func keyTooLong(_ key: String, in path: String) -> CoreError {
        CoreError(
            .invalidKey,
            "Invalid key '\(key.prefix(40))...' in path '\(path.prefix(200))': keys can be at most 768 bytes of UTF-8."
        )
    }

    static func pathTooDeep(_ path: String) -> CoreError {
        CoreError(
            .tooDeep,
            "Invalid path '\(path.prefix(300))': data can be nested at most 32 levels deep."
        )
    }

    static func nestingTooDeep(byte: Int) -> CoreError {
        CoreError(.tooDeep, "Invalid JSON at byte \(byte): arrays and objects can be nested at most 512 levels deep.")
    }

    static func priorityNotLastSegment(_ path: String) -> CoreError {
        CoreError(
            .invalidPath,
            "Invalid path '\(path)': '.priority' can only be the last segment of a write path."
        )
    }

    // MARK: JSON syntax

    static func json(_ byte: Int, _ what: String) -> CoreError {
        CoreError(.invalidJSON, "Invalid JSON at byte \(byte): \(what).")
    }

    static func unexpectedEnd(_ byte: Int) -> CoreError {
        json(byte, "unexpected end of input")
    }

    static func expectedValue(_ byte: Int, found: UInt8) -> CoreError {
        json(byte, "expected a value (object, array, string, number, true, false or null) but found \(show(found))")
    }

    static func expectedAfterMember(_ byte: Int) -> CoreError {
        json(byte, "expected ',' or '}' after an object member")
    }

    static func expectedAfterElement(_ byte: Int) -> CoreError {
        json(byte, "expected ',' or ']' after an array element")
    }

    static func expectedKey(_ byte: Int) -> CoreError {
        json(byte, "expected a '\"'-quoted key")
    }

    static func expectedColon(_ byte: Int) -> CoreError {
        json(byte, "expected ':' after an object key")
    }

    static func trailingCharacters(_ byte: Int) -> CoreError {
        json(byte, "unexpected characters after the JSON value")
    }

    static func invalidLiteral(_ byte: Int) -> CoreError {
        json(byte, "expected 'true', 'false' or 'null'")
    }

    static func invalidNumber(_ byte: Int) -> CoreError {
        json(byte, "invalid number; numbers are written as -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?")
    }

    static func numberOutOfRange(_ byte: Int, text: String) -> CoreError {
        json(byte, "number '\(text.prefix(40))' is outside the range of a 64-bit double")
    }

    static func invalidUTF8(_ byte: Int) -> CoreError {
        json(byte, "invalid UTF-8; JSON text must be UTF-8 encoded")
    }

    static func controlCharacterInString(_ byte: Int) -> CoreError {
        json(byte, "control characters must be escaped inside strings (as \\n, \\t or \\u00XX)")
    }

    static func invalidEscape(_ byte: Int) -> CoreError {
        json(byte, "invalid escape; accepted are \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t and \\uXXXX")
    }

    static func loneSurrogate(_ byte: Int, _ hex: String) -> CoreError {
        CoreError(
            .unpairedSurrogate,
            "Invalid JSON at byte \(byte): '\\u\(hex)' is an unpaired UTF-16 surrogate; "
                + "only complete surrogate pairs are accepted."
        )
    }

    static func unterminatedComment(_ byte: Int) -> CoreError {
        json(byte, "unterminated '/*' comment")
    }

    static func show(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }

    // MARK: Firebase data semantics

    static func valueWithChildren(at path: String) -> CoreError {
        CoreError(
            .invalidData,
            "Invalid data at '\(path)': '.value' cannot be combined with keys other than '.priority'."
        )
    }

    static func invalidPriority(_ value: String, at path: String) -> CoreError {
        CoreError(
            .invalidData,
            "Invalid priority '\(value.prefix(60))' at '\(path)': '.priority' must be a number, a string or null."
        )
    }

    static func invalidServerValue(_ value: String, at path: String) -> CoreError {
        CoreError(
            .invalidData,
            "Invalid server value '\(value.prefix(80))' at '\(path)': accepted are {\".sv\": \"timestamp\"} and {\".sv\": {\"increment\": number}}."
        )
    }

    static func serverValueInImport(at path: String) -> CoreError {
        CoreError(
            .invalidData,
            "Invalid data at '\(path)': server values ('.sv') cannot be imported; only plain JSON data is accepted."
        )
    }

    static func eventParserFinished() -> CoreError {
        CoreError(
            .invalidJSON,
            "Invalid JSON: bytes were fed after the end of the document was reached; only one JSON value is accepted."
        )
    }
}
