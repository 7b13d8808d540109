import Foundation

/// The SDK's `doubleToIEEE754String`, reproduced operation by operation in doubles, quirks
/// included: for magnitudes below 2^-971 the SDK's `Math.pow(2, 52 - ln)` overflows to
/// infinity and the mantissa bits come out as zeros, so tiny normal numbers do not hash as
/// their real IEEE bits. Exact bit patterns are used wherever the SDK's arithmetic is exact.
enum IEEE754Hex {
    static func string(_ input: Double) -> String {
        let ebits = 11
        let fbits = 52
        let bias = Double((1 << (ebits - 1)) - 1)  // 1023
        var v = input
        var s = false
        var e: Double
        var f: Double
        if v == 0 {
            e = 0
            f = 0
            s = (1 / v) == -Double.infinity
        } else {
            s = v < 0
            v = abs(v)
            if v >= jsPow2(1 - bias) {
                // Normalized
                let ln = min((log(v) / M_LN2).rounded(.down), bias)
                e = ln + bias
                f = jsRound(v * jsPow2(Double(fbits) - ln) - jsPow2(Double(fbits)))
            } else {
                // Denormalized
                e = 0
                f = jsRound(v / jsPow2(1 - bias - Double(fbits)))
            }
        }
        var bits: [UInt8] = []
        bits.reserveCapacity(64)
        for _ in 0..<fbits {
            bits.append(jsTruthy(jsRemainder(f, 2)) ? 1 : 0)
            f = (f / 2).rounded(.down)
        }
        for _ in 0..<ebits {
            bits.append(jsTruthy(jsRemainder(e, 2)) ? 1 : 0)
            e = (e / 2).rounded(.down)
        }
        bits.append(s ? 1 : 0)
        bits.reverse()
        let hexDigits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for byteIndex in 0..<8 {
            var value = 0
            for k in 0..<8 { value = value << 1 | Int(bits[byteIndex * 8 + k]) }
            out.append(hexDigits[value >> 4])
            out.append(hexDigits[value & 0xF])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `Math.pow(2, x)` for integral x: exact, infinity above 1023, zero below -1074.
    static func jsPow2(_ x: Double) -> Double {
        if x > 1023 { return .infinity }
        if x < -1074 { return 0 }
        return Double(sign: .plus, exponent: Int(x), significand: 1)
    }

    /// `Math.round`: round half up.
    static func jsRound(_ x: Double) -> Double {
        guard x.isFinite else { return x }
        var r = x.rounded(.up)
        if r - 0.5 > x { r -= 1 }
        return r
    }

    /// JavaScript's `%` (result has the sign of the dividend; NaN for infinite dividends).
    static func jsRemainder(_ a: Double, _ b: Double) -> Double {
        a.truncatingRemainder(dividingBy: b)
    }

    /// JavaScript truthiness of a number: false for 0, -0 and NaN.
    static func jsTruthy(_ x: Double) -> Bool {
        !(x == 0 || x.isNaN)
    }
}
