import Foundation
import HearthProtocol

extension Timestamp {
    /// The wall clock now, in whole milliseconds (what sessions, ticks and token expiry use).
    static func now() -> Timestamp {
        Timestamp(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
    }
}
