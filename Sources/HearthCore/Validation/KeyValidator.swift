/// Firebase's rules for keys: non-empty, at most 768 bytes of UTF-8, none of `. $ # [ ] /`
/// and no ASCII control characters (U+0000...U+001F, U+007F). Paths are at most 32 keys deep.
public enum KeyValidator {
    /// The longest key accepted, in UTF-8 bytes.
    public static let maxKeyBytes = 768
    /// The deepest path accepted, in keys.
    public static let maxDepth = 32

    /// Why a key is refused.
    public enum Problem: Hashable, Sendable {
        case empty
        case forbiddenCharacter
        case tooLong
    }

    /// The problem with `key`, or nil when it is a valid key.
    public static func problem(_ key: String) -> Problem? {
        var key = key
        return key.withUTF8 { problem(bytes: $0) }
    }

    /// The problem with the UTF-8 bytes of a key, or nil when they are a valid key.
    @inline(__always)
    static func problem(bytes: UnsafeBufferPointer<UInt8>) -> Problem? {
        if bytes.isEmpty { return .empty }
        if bytes.count > maxKeyBytes { return .tooLong }
        for b in bytes where isForbidden(b) { return .forbiddenCharacter }
        return nil
    }

    @inline(__always)
    static func isForbidden(_ b: UInt8) -> Bool {
        switch b {
        case 0x00...0x1F, 0x7F, UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    /// True when `key` is a valid key.
    public static func isValid(_ key: String) -> Bool {
        problem(key) == nil
    }

    /// Throws the standard message when `key` is invalid.
    /// - Parameter path: the full path the key appears in, for the message (e.g. `/users/a.b`).
    public static func validate(_ key: String, inPath path: @autoclosure () -> String) throws {
        if let problem = problem(key) {
            throw error(problem, key: key, path: path())
        }
    }

    static func error(_ problem: Problem, key: String, path: String) -> CoreError {
        switch problem {
        case .empty: return CoreError.keyEmpty(in: path)
        case .forbiddenCharacter: return CoreError.keyForbiddenCharacter(key, in: path)
        case .tooLong: return CoreError.keyTooLong(key, in: path)
        }
    }

    /// `/a/b` for a list of keys (the root is `/`).
    static func describe(_ keys: some Collection<ChildKey>) -> String {
        keys.isEmpty ? "/" : "/" + keys.map(\.string).joined(separator: "/")
    }
}
