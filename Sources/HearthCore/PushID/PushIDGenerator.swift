import Foundation
import Synchronization

/// Firebase's 20-character chronological push ids: 8 characters of milliseconds since the
/// epoch, then 12 random characters, over an alphabet in ASCII order, so ids sort by creation
/// time. Within one millisecond the random part is incremented, so ids from one generator are
/// strictly increasing.
public final class PushIDGenerator: Sendable {
    /// The SDK's alphabet (`PUSH_CHARS`), in ASCII order.
    public static let alphabet: [UInt8] = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private struct State {
        var lastTime: UInt64 = 0
        var lastRandom: [UInt8] = Array(repeating: 0, count: 12)
        var generator = SystemRandomNumberGenerator()
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> UInt64

    /// A generator reading the given clock (milliseconds since the epoch).
    public init(clock: @escaping @Sendable () -> UInt64) {
        self.clock = clock
    }

    /// A generator reading the system clock.
    public convenience init() {
        self.init(clock: { UInt64(Date().timeIntervalSince1970 * 1000) })
    }

    /// The next id.
    public func next() -> String {
        let now = clock()
        return state.withLock { state in
            // A clock that goes backwards must not break the order: stay at the last time.
            let time = max(now, state.lastTime)
            var duplicate = time == state.lastTime
            if duplicate {
                var i = 11
                while i >= 0 && state.lastRandom[i] == 63 {
                    state.lastRandom[i] = 0
                    i -= 1
                }
                if i >= 0 {
                    state.lastRandom[i] += 1
                } else {
                    // All 72 random bits overflowed: move to the next millisecond.
                    duplicate = false
                }
            }
            if !duplicate {
                // 72 random bits in two draws (each draw of the system generator is a system
                // call), six bits per character.
                var bits = state.generator.next()
                for i in 0..<10 {
                    state.lastRandom[i] = UInt8(truncatingIfNeeded: bits & 63)
                    bits >>= 6
                }
                bits = state.generator.next()
                state.lastRandom[10] = UInt8(truncatingIfNeeded: bits & 63)
                state.lastRandom[11] = UInt8(truncatingIfNeeded: (bits >> 6) & 63)
            }
            let stamp = duplicate || time > state.lastTime ? time : time + 1
            state.lastTime = stamp
            var chars = [UInt8](repeating: 0, count: 20)
            var t = stamp
            for i in stride(from: 7, through: 0, by: -1) {
                chars[i] = PushIDGenerator.alphabet[Int(t % 64)]
                t /= 64
            }
            for i in 0..<12 { chars[8 + i] = PushIDGenerator.alphabet[Int(state.lastRandom[i])] }
            return String(decoding: chars, as: UTF8.self)
        }
    }

    /// The creation time (milliseconds) encoded in a push id, or nil when it is not one.
    public static func timestamp(of id: String) -> UInt64? {
        let utf8 = Array(id.utf8)
        guard utf8.count == 20 else { return nil }
        var t: UInt64 = 0
        for c in utf8[0..<8] {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            t = t * 64 + UInt64(v)
        }
        return t
    }
}
