import Foundation
import HearthAccounts

/// The fields of an auth request body: a JSON object, or `application/x-www-form-urlencoded`
/// (how the SDKs call `securetoken.googleapis.com/v1/token`).
struct AccountsRequestBody: Sendable {
    private let fields: [String: AccountsField]

    enum AccountsField: Sendable {
        case string(String)
        case bool(Bool)
        case strings([String])
        case other
    }

    static let maxBytes = 64 << 10

    /// - Throws: `INVALID_ARGUMENT` for a body that is neither.
    init(bytes: [UInt8], contentType: String?) throws(AccountsError) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            fields = [:]
            return
        }
        let type = contentType?.lowercased() ?? ""
        let looksLikeJSON = bytes.first(where: { $0 > 0x20 }) == UInt8(ascii: "{")
        if type.contains("x-www-form-urlencoded") || (!looksLikeJSON && !type.contains("json")) {
            fields = Self.form(bytes)
            return
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            throw AccountsError(.invalidArgument, "Invalid JSON payload received: the body must be a JSON object")
        }
        var fields: [String: AccountsField] = [:]
        for (key, value) in object {
            switch value {
            case let string as String: fields[key] = .string(string)
            case let flag as Bool: fields[key] = .bool(flag)
            case let array as [Any]: fields[key] = .strings(array.compactMap { $0 as? String })
            default: fields[key] = .other
            }
        }
        self.fields = fields
    }

    private static func form(_ bytes: [UInt8]) -> [String: AccountsField] {
        var fields: [String: AccountsField] = [:]
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            guard let name = parts.first else { continue }
            fields[decode(name)] = .string(parts.count > 1 ? decode(parts[1]) : "")
        }
        return fields
    }

    /// A string field (also accepts the snake_case spelling `alternate`).
    func string(_ name: String, or alternate: String? = nil) -> String? {
        for key in [name, alternate].compactMap({ $0 }) {
            if case .string(let value)? = fields[key] { return value }
        }
        return nil
    }

    func bool(_ name: String) -> Bool? {
        switch fields[name] {
        case .bool(let value)?: return value
        case .string(let value)?: return value == "true" ? true : value == "false" ? false : nil
        default: return nil
        }
    }

    /// A list of strings; a single string counts as a list of one.
    func strings(_ name: String) -> [String] {
        switch fields[name] {
        case .strings(let values)?: return values
        case .string(let value)?: return [value]
        default: return []
        }
    }

    func has(_ name: String) -> Bool { fields[name] != nil }
}
