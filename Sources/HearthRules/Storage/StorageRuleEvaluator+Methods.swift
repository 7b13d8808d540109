import Foundation

/// The methods of the language's types (firebase.google.com/docs/reference/rules/rules).
extension StorageRuleEvaluator {
    /// Every method name, with how many arguments it takes (for the checker).
    static let methods: [String: ClosedRange<Int>] = [
        "size": 0...0, "lower": 0...0, "upper": 0...0, "trim": 0...0, "matches": 1...1, "replace": 2...2,
        "split": 1...1, "toUtf8": 0...0, "hasAll": 1...1, "hasAny": 1...1, "hasOnly": 1...1, "join": 1...1,
        "concat": 1...1, "removeAll": 1...1, "toSet": 0...0, "keys": 0...0, "values": 0...0, "get": 2...2,
        "diff": 1...1, "addedKeys": 0...0, "removedKeys": 0...0, "changedKeys": 0...0, "affectedKeys": 0...0,
        "unchangedKeys": 0...0, "difference": 1...1, "intersection": 1...1, "union": 1...1, "toBase64": 0...0,
        "toHexString": 0...0, "year": 0...0, "month": 0...0, "day": 0...0, "hours": 0...0, "minutes": 0...0,
        "seconds": 0...0, "nanos": 0...0, "toMillis": 0...0, "date": 0...0, "time": 0...0, "dayOfWeek": 0...0,
        "dayOfYear": 0...0, "latitude": 0...0, "longitude": 0...0, "distance": 1...1,
    ]

    func method(_ name: String, of target: StorageRuleValue, _ arguments: [StorageRuleValue]) -> StorageRuleValue {
        let first = arguments.first
        func wrong() -> StorageRuleValue {
            .error(
                "\(target.typeName) has no method '\(name)' taking \(arguments.map(\.typeName).joined(separator: ", ")) "
            )
        }
        switch (target, name) {
        // Strings
        case (.string(let s), "size"): return .int(Int64(s.unicodeScalars.count))
        case (.string(let s), "lower"): return .string(s.lowercased())
        case (.string(let s), "upper"): return .string(s.uppercased())
        case (.string(let s), "trim"): return .string(s.trimmingCharacters(in: .whitespaces))
        case (.string(let s), "toUtf8"): return .bytes(Array(s.utf8))
        case (.string(let s), "matches"):
            guard case .string(let pattern)? = first else { return wrong() }
            return regex(pattern).map { regex in
                regex.matches(s).map(StorageRuleValue.bool) ?? .error("the pattern took too long to match")
            } ?? .error("invalid regular expression '\(pattern)'")
        case (.string(let s), "replace"):
            guard case .string(let pattern)? = first, case .string(let replacement) = arguments[1] else {
                return wrong()
            }
            guard let regex = regex(pattern, anchored: false) else {
                return .error("invalid regular expression '\(pattern)'")
            }
            return regex.replacingAll(in: s, with: replacement).map(StorageRuleValue.string)
                ?? .error("the pattern took too long to match")
        case (.string(let s), "split"):
            guard case .string(let pattern)? = first else { return wrong() }
            guard let regex = regex(pattern, anchored: false) else {
                return .error("invalid regular expression '\(pattern)'")
            }
            return regex.splitting(s).map { .list($0.map(StorageRuleValue.string)) }
                ?? .error("the pattern took too long to match")
        // Bytes
        case (.bytes(let b), "size"): return .int(Int64(b.count))
        case (.bytes(let b), "toBase64"): return .string(Data(b).base64EncodedString())
        case (.bytes(let b), "toHexString"): return .string(StorageRuleValue.hex(b).uppercased())
        // Lists and sets
        case (.list(let items), "size"), (.set(let items), "size"): return .int(Int64(items.count))
        case (.list(let items), "hasAll"), (.set(let items), "hasAll"):
            guard let other = first?.items else { return wrong() }
            return .bool(other.allSatisfy { StorageRuleValue.contains(items, $0) })
        case (.list(let items), "hasAny"), (.set(let items), "hasAny"):
            guard let other = first?.items else { return wrong() }
            return .bool(other.contains { StorageRuleValue.contains(items, $0) })
        case (.list(let items), "hasOnly"), (.set(let items), "hasOnly"):
            guard let other = first?.items else { return wrong() }
            return .bool(items.allSatisfy { StorageRuleValue.contains(other, $0) })
        case (.list(let items), "join"):
            guard case .string(let separator)? = first else { return wrong() }
            var parts: [String] = []
            for item in items {
                guard case .string(let s) = item else { return .error("join takes a list of strings") }
                parts.append(s)
            }
            return .string(parts.joined(separator: separator))
        case (.list(let items), "concat"):
            guard case .list(let other)? = first else { return wrong() }
            return .list(items + other)
        case (.list(let items), "removeAll"):
            guard let other = first?.items else { return wrong() }
            return .list(items.filter { !StorageRuleValue.contains(other, $0) })
        case (.list(let items), "toSet"): return .set(StorageRuleValue.distinct(items))
        case (.set(let items), "difference"):
            guard let other = first?.items else { return wrong() }
            return .set(items.filter { !StorageRuleValue.contains(other, $0) })
        case (.set(let items), "intersection"):
            guard let other = first?.items else { return wrong() }
            return .set(items.filter { StorageRuleValue.contains(other, $0) })
        case (.set(let items), "union"):
            guard let other = first?.items else { return wrong() }
            return .set(StorageRuleValue.distinct(items + other))
        // Maps
        case (.map(let map), "size"): return .int(Int64(map.count))
        case (.map(let map), "keys"): return .list(map.keys.sorted().map(StorageRuleValue.string))
        case (.map(let map), "values"): return .list(map.keys.sorted().map { map[$0]! })
        case (.map(let map), "get"):
            return Self.lookup(map, first!) ?? arguments[1]
        case (.map(let map), "diff"):
            guard case .map(let other)? = first else { return wrong() }
            return .mapDiff(before: map, after: other)
        case (.mapDiff(let before, let after), _):
            let keys: [String]
            switch name {
            case "addedKeys": keys = after.keys.filter { before[$0] == nil }
            case "removedKeys": keys = before.keys.filter { after[$0] == nil }
            case "changedKeys":
                keys = before.keys.filter { key in
                    after[key].map { StorageRuleValue.equal(before[key]!, $0) == false } ?? false
                }
            case "unchangedKeys":
                keys = before.keys.filter { key in
                    after[key].map { StorageRuleValue.equal(before[key]!, $0) == true } ?? false
                }
            case "affectedKeys":
                keys = Set(before.keys).union(after.keys).filter { key in
                    guard let b = before[key], let a = after[key] else { return true }
                    return StorageRuleValue.equal(b, a) != true
                }
            default: return wrong()
            }
            return .set(keys.sorted().map(StorageRuleValue.string))
        // Paths
        case (.path(let segments), "size"): return .int(Int64(segments.count))
        // Timestamps
        case (.timestamp(let seconds, let nanos), _): return Self.timestampMethod(name, seconds, nanos) ?? wrong()
        // Durations
        case (.duration(let d), "seconds"): return .int(d / StorageTime.nanosPerSecond)
        case (.duration(let d), "nanos"): return .int(d % StorageTime.nanosPerSecond)
        // Points
        case (.latlng(let lat, _), "latitude"): return .float(lat)
        case (.latlng(_, let lng), "longitude"): return .float(lng)
        case (.latlng(let lat, let lng), "distance"):
            guard case .latlng(let lat2, let lng2)? = first else { return wrong() }
            return .float(Self.distance(lat, lng, lat2, lng2))
        case (.null, _): return .error("null value has no method '\(name)'")
        default: return wrong()
        }
    }

    /// `map.get(key, default)`: key is a string, or a list of strings walking nested maps.
    static func lookup(_ map: [String: StorageRuleValue], _ key: StorageRuleValue) -> StorageRuleValue? {
        switch key {
        case .string(let name): return map[name]
        case .list(let names):
            var current = StorageRuleValue.map(map)
            for name in names {
                guard case .string(let s) = name, case .map(let inner) = current, let next = inner[s] else {
                    return nil
                }
                current = next
            }
            return current
        default: return nil
        }
    }

    static func timestampMethod(_ name: String, _ seconds: Int64, _ nanos: Int32) -> StorageRuleValue? {
        let days = StorageTime.floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = StorageTime.civil(days: days)
        switch name {
        case "year": return .int(y)
        case "month": return .int(m)
        case "day": return .int(d)
        case "hours": return .int(secondOfDay / 3600)
        case "minutes": return .int(secondOfDay / 60 % 60)
        case "seconds": return .int(secondOfDay % 60)
        case "nanos": return .int(Int64(nanos))
        case "toMillis": return .int(seconds * 1000 + Int64(nanos) / 1_000_000)
        case "date": return .timestamp(seconds: days * 86_400, nanos: 0)
        case "time": return .duration(secondOfDay * StorageTime.nanosPerSecond + Int64(nanos))
        case "dayOfWeek":
            // 1970-01-01 was a Thursday; Monday is 1, Sunday 7.
            let weekday = ((days % 7) + 7 + 3) % 7 + 1
            return .int(weekday)
        case "dayOfYear": return .int(days - StorageTime.days(year: y, month: 1, day: 1) + 1)
        default: return nil
        }
    }

    /// Great-circle distance in meters (haversine on a sphere of Earth's mean radius).
    static func distance(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLng = (lng2 - lng1) * radians
        let a =
            sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLng / 2) * sin(dLng / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    /// A pattern of `matches` (the whole string must match, as RE2's FullMatch) or, not
    /// anchored, of `replace` and `split`. A leading `(?i)` ignores case. A pattern written as
    /// a literal in the rules was compiled at load (`StorageRegexes`); others are compiled here.
    func regex(_ pattern: String, anchored: Bool = true) -> RuleRegex? {
        regexes.compiled(pattern, anchored: anchored) ?? (try? RuleRegex(rulesPattern: pattern, fullMatch: anchored))
    }
}

extension StorageRuleValue {
    /// The elements of a list or a set.
    var items: [StorageRuleValue]? {
        switch self {
        case .list(let items), .set(let items): return items
        default: return nil
        }
    }
}

/// The rules' literal patterns, compiled once when the rules load.
struct StorageRegexes: Sendable {
    private var table: [String: RuleRegex] = [:]

    private static func key(_ pattern: String, anchored: Bool) -> String { (anchored ? "m:" : "s:") + pattern }

    func compiled(_ pattern: String, anchored: Bool) -> RuleRegex? {
        table[Self.key(pattern, anchored: anchored)]
    }

    mutating func add(_ regex: RuleRegex, _ pattern: String, anchored: Bool) {
        table[Self.key(pattern, anchored: anchored)] = regex
    }
}
