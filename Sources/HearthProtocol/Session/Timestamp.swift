/// A wall-clock instant in milliseconds since 1970, as the hello's `ts` and token expiry use it.
/// The session never reads a clock: callers pass `now` to every event.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The instant `seconds` (UNIX time, as JWT `exp` claims are written) since 1970.
    public init(secondsSince1970 seconds: Int64) {
        self.millisecondsSince1970 = seconds * 1000
    }

    /// The instant `milliseconds` later.
    public func adding(milliseconds: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: millisecondsSince1970 + milliseconds)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    public var description: String { "\(millisecondsSince1970)ms" }
}
