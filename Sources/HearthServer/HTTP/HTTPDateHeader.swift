import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `Date` header's value (RFC 9110's IMF-fixdate, `Wed, 02 Dec 2026 07:12:05 GMT`), as
/// Hummingbird writes it on the router's answers, for answers written below the router. Made
/// once a second and shared.
enum HTTPDateHeader {
    private static let cached = Mutex<(second: Int, text: String)>((-1, ""))

    static var now: String {
        let second = time(nil)
        return cached.withLock { cached in
            if cached.second != second { cached = (second, format(second)) }
            return cached.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `second` (seconds since 1970) as IMF-fixdate.
    static func format(_ second: Int) -> String {
        var clock = time_t(second)
        var parts = tm()
        gmtime_r(&clock, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
