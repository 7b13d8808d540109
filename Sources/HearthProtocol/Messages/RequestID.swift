/// The request number `r` the client gives each request; the response carries it back.
public struct RequestID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number as the client sent it.
    public var rawValue: Int64

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
