import ArgumentParser

/// The environment variables the CLI reads; injectable so that resolution is testable.
struct Environment: Sendable {
    var values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    /// The value of `name`, or nil when it is unset or empty.
    subscript(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// `flag` when given, else the variable `name`, else nil.
    func string(_ flag: String?, _ name: String) -> String? {
        flag ?? self[name]
    }

    /// `flag` when given, else the variable `name` parsed as an integer in `range`.
    func integer(_ flag: Int?, _ name: String, in range: ClosedRange<Int>, option: String) throws -> Int? {
        if let flag {
            guard range.contains(flag) else {
                throw ValidationError(
                    "Invalid value '\(flag)' for '\(option)': expected \(range.lowerBound)...\(range.upperBound)."
                )
            }
            return flag
        }
        guard let text = self[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ValidationError(
                "Invalid value '\(text)' for \(name): expected an integer \(range.lowerBound)...\(range.upperBound)."
            )
        }
        return value
    }

    /// True when the flag is set, or the variable `name` is a true value (`1`, `true`, `yes`, `on`).
    func boolean(_ flag: Bool, _ name: String) throws -> Bool {
        if flag { return true }
        guard let text = self[name] else { return false }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default:
            throw ValidationError("Invalid value '\(text)' for \(name): expected 'true' or 'false'.")
        }
    }
}
