import Foundation

/// The global functions (`int`, `string`, `path`...) and the namespaces' (`math.abs`,
/// `timestamp.date`, `duration.value`, `latlng.value`, and Hearth's `database.get/exists`).
extension StorageRuleEvaluator {
    /// Global functions with their argument counts (for the checker).
    static let globals: [String: ClosedRange<Int>] = [
        "int": 1...1, "float": 1...1, "string": 1...1, "bool": 1...1, "path": 1...1, "debug": 1...1,
    ]

    /// Namespaced functions with their argument counts (for the checker).
    static let namespaced: [String: [String: ClosedRange<Int>]] = [
        "math": [
            "abs": 1...1, "ceil": 1...1, "floor": 1...1, "round": 1...1, "sqrt": 1...1, "pow": 2...2,
            "isInfinite": 1...1, "isNaN": 1...1,
        ],
        "timestamp": ["date": 3...3, "value": 1...1],
        "duration": ["value": 2...2, "time": 4...4, "abs": 1...1],
        "latlng": ["value": 2...2],
        "database": ["get": 1...1, "exists": 1...1],
        "hashing": ["crc32": 1...1, "crc32c": 1...1, "md5": 1...1, "sha256": 1...1],
    ]

    func global(_ name: String, _ arguments: [StorageRuleValue]) -> StorageRuleValue {
        guard arguments.count == 1 else { return .error("'\(name)' takes one argument") }
        let value = arguments[0]
        switch (name, value) {
        case ("debug", _): return value
        case ("int", .int): return value
        case ("int", .float(let f)):
            guard f.isFinite, f.magnitude < 9.2e18 else { return .error("\(f) is out of int's range") }
            return .int(Int64(f))
        case ("int", .string(let s)): return Int64(s).map(StorageRuleValue.int) ?? .error("'\(s)' is not an int")
        case ("float", .int(let i)): return .float(Double(i))
        case ("float", .float): return value
        case ("float", .string(let s)): return Double(s).map(StorageRuleValue.float) ?? .error("'\(s)' is not a float")
        case ("bool", .bool): return value
        case ("bool", .string("true")): return .bool(true)
        case ("bool", .string("false")): return .bool(false)
        case ("string", .string): return value
        case ("string", .null): return .string("null")
        case ("string", .bool(let b)): return .string(b ? "true" : "false")
        case ("string", .int(let i)): return .string(String(i))
        case ("string", .float(let f)): return .string(String(f))
        case ("string", .path(let segments)): return .string("/" + segments.joined(separator: "/"))
        case ("string", _): return .string(value.shown)
        case ("path", .string(let s)): return .path(s.split(separator: "/").map(String.init))
        case ("path", .path): return value
        default: return .error("'\(name)' does not take \(value.typeName)")
        }
    }

    func namespaced(_ namespace: String, _ name: String, _ arguments: [StorageRuleValue]) -> StorageRuleValue {
        switch (namespace, name, arguments.count) {
        case ("database", "get", 1): return read(arguments[0])
        case ("database", "exists", 1):
            let value = read(arguments[0])
            if value.isError { return value }
            if case .null = value { return .bool(false) }
            return .bool(true)
        case ("math", _, 1): return math(name, arguments[0])
        case ("hashing", _, 1): return hashing(name, arguments[0])
        case ("math", "pow", 2):
            guard let base = arguments[0].double, let exponent = arguments[1].double else {
                return .error("math.pow takes numbers")
            }
            return .float(pow(base, exponent))
        case ("timestamp", "date", 3):
            guard case .int(let y) = arguments[0], case .int(let m) = arguments[1], case .int(let d) = arguments[2],
                (1...9999).contains(y), (1...12).contains(m), (1...31).contains(d)
            else { return .error("timestamp.date takes a year 1-9999, a month 1-12 and a day 1-31") }
            let days = StorageTime.days(year: y, month: m, day: d)
            guard StorageTime.civil(days: days) == (y, m, d) else { return .error("\(y)-\(m)-\(d) is not a date") }
            return .timestamp(seconds: days * 86_400, nanos: 0)
        case ("timestamp", "value", 1):
            guard case .int(let millis) = arguments[0] else {
                return .error("timestamp.value takes milliseconds as an int")
            }
            return StorageTime.timestamp(
                seconds: StorageTime.floorDiv(millis, 1000),
                nanos: (millis - StorageTime.floorDiv(millis, 1000) * 1000) * 1_000_000
            )
        case ("duration", "value", 2):
            guard case .string(let unitName) = arguments[1], let unit = StorageTime.unit(unitName) else {
                return .error("duration.value takes a unit: 'w', 'd', 'h', 'm', 's', 'ms' or 'ns'")
            }
            switch arguments[0] {
            case .int(let n):
                let (result, overflow) = n.multipliedReportingOverflow(by: unit)
                return overflow ? .error("duration overflow") : .duration(result)
            case .float(let f):
                let nanos = f * Double(unit)
                guard nanos.isFinite, nanos.magnitude < 9.2e18 else { return .error("duration overflow") }
                return .duration(Int64(nanos))
            default: return .error("duration.value takes a number")
            }
        case ("duration", "time", 4):
            var total: Int64 = 0
            for (argument, unit) in zip(
                arguments,
                [3600 * StorageTime.nanosPerSecond, 60 * StorageTime.nanosPerSecond, StorageTime.nanosPerSecond, 1]
            ) {
                guard case .int(let n) = argument else { return .error("duration.time takes ints") }
                let (part, overflow) = n.multipliedReportingOverflow(by: unit)
                let (sum, overflow2) = total.addingReportingOverflow(part)
                guard !overflow, !overflow2 else { return .error("duration overflow") }
                total = sum
            }
            return .duration(total)
        case ("duration", "abs", 1):
            guard case .duration(let d) = arguments[0], d != .min else {
                return .error("duration.abs takes a duration")
            }
            return .duration(abs(d))
        case ("latlng", "value", 2):
            guard let lat = arguments[0].double, let lng = arguments[1].double, (-90...90).contains(lat),
                (-180...180).contains(lng)
            else { return .error("latlng.value takes a latitude -90..90 and a longitude -180..180") }
            return .latlng(lat, lng)
        default:
            return .error("\(namespace).\(name) with \(arguments.count) arguments is not a function Hearth knows")
        }
    }

    func math(_ name: String, _ value: StorageRuleValue) -> StorageRuleValue {
        switch (name, value) {
        case ("abs", .int(let i)): return i == .min ? .error("integer overflow") : .int(abs(i))
        case ("abs", .float(let f)): return .float(abs(f))
        case ("isNaN", .float(let f)): return .bool(f.isNaN)
        case ("isNaN", .int): return .bool(false)
        case ("isInfinite", .float(let f)): return .bool(f.isInfinite)
        case ("isInfinite", .int): return .bool(false)
        case ("ceil", .int), ("floor", .int), ("round", .int): return value
        case ("ceil", .float(let f)): return .float(f.rounded(.up))
        case ("floor", .float(let f)): return .float(f.rounded(.down))
        case ("round", .float(let f)): return .float(f.rounded(.toNearestOrAwayFromZero))
        case ("sqrt", _):
            guard let d = value.double else { return .error("math.sqrt takes a number") }
            return .float(d.squareRoot())
        default: return .error("math.\(name) does not take \(value.typeName)")
        }
    }
}
