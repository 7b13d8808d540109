/// Calendar arithmetic of the rules' `timestamp` and `duration` types, in UTC, without
/// Foundation: days from a civil date and back (Howard Hinnant's algorithms), RFC 3339 text.
enum StorageTime {
    static let nanosPerSecond: Int64 = 1_000_000_000
    /// The range timestamps may take: 0001-01-01T00:00:00Z ..< 10000-01-01T00:00:00Z.
    static let minSeconds: Int64 = -62_135_596_800
    static let maxSeconds: Int64 = 253_402_300_799

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day since 1970-01-01.
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// A timestamp from seconds and nanoseconds that may be out of their ranges, or an error.
    static func timestamp(seconds: Int64, nanos: Int64) -> StorageRuleValue {
        let carry = floorDiv(nanos, nanosPerSecond)
        let (total, overflow) = seconds.addingReportingOverflow(carry)
        guard !overflow, total >= minSeconds, total <= maxSeconds else {
            return .error("timestamp out of range (years 1 to 9999)")
        }
        return .timestamp(seconds: total, nanos: Int32(nanos - carry * nanosPerSecond))
    }

    /// `2024-05-01T12:00:00.5Z`
    static func text(seconds: Int64, nanos: Int32) -> String {
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = civil(days: days)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var year = String(y)
        while year.count < 4 { year = "0" + year }
        var text =
            "\(year)-\(two(m))-\(two(d))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if nanos > 0 {
            var fraction = String(nanos)
            while fraction.count < 9 { fraction = "0" + fraction }
            while fraction.last == "0" { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }

    /// `90s`, `1.5s`, `-2s`
    static func durationText(_ nanos: Int64) -> String {
        let seconds = nanos / nanosPerSecond
        let rest = abs(nanos % nanosPerSecond)
        guard rest > 0 else { return "\(seconds)s" }
        var fraction = String(rest)
        while fraction.count < 9 { fraction = "0" + fraction }
        while fraction.last == "0" { fraction.removeLast() }
        return "\(nanos < 0 && seconds == 0 ? "-" : "")\(seconds).\(fraction)s"
    }

    /// Nanoseconds of one `unit` of `duration.value` ('w', 'd', 'h', 'm', 's', 'ms', 'ns').
    static func unit(_ name: String) -> Int64? {
        switch name {
        case "w": return 7 * 86_400 * nanosPerSecond
        case "d": return 86_400 * nanosPerSecond
        case "h": return 3600 * nanosPerSecond
        case "m": return 60 * nanosPerSecond
        case "s": return nanosPerSecond
        case "ms": return 1_000_000
        case "us": return 1000
        case "ns": return 1
        default: return nil
        }
    }
}
