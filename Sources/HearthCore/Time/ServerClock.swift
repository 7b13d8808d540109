import Foundation

/// The server's time: milliseconds since 1970, rounded down. It stamps server values
/// (`{".sv": "timestamp"}`) and is the rules' `now`. Production reads the wall clock
/// (`system`); a test passes a clock it moves by hand, through `HearthServerConfiguration.clock`
/// or `Store.open(directory:configuration:clock:)`, instead of sleeping.
public struct ServerClock: Sendable {
    private let read: @Sendable () -> Double

    /// A clock answering `milliseconds()` (milliseconds since 1970).
    public init(milliseconds: @escaping @Sendable () -> Double) {
        read = milliseconds
    }

    /// The wall clock.
    public static let system = ServerClock { (Date().timeIntervalSince1970 * 1000).rounded(.down) }

    /// Milliseconds since 1970.
    public func now() -> Double { read() }
}
