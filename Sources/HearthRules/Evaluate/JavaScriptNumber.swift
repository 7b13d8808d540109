/// Numbers as JavaScript writes them (ECMAScript `Number::toString`), for `+` with a string:
/// `'v' + 2` is 'v2', `'x' + 0.5` is 'x0.5', `'' + 1e21` is '1e+21', `'' + 1e-7` is '1e-7'.
enum JavaScriptNumber {
    static func string(_ x: Double) -> String {
        if x.isNaN { return "NaN" }
        if x == 0 { return "0" }
        if x < 0 { return "-" + string(-x) }
        if x.isInfinite { return "Infinity" }
        // The shortest digits that round-trip (Swift's description finds them), and the
        // exponent n with x = 0.d1d2...dk × 10^n.
        let text = x.description
        let parts = text.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        let exponent = parts.count == 2 ? Int(parts[1])! : 0
        var digits = Array(mantissa.utf8.filter { $0 != UInt8(ascii: ".") })
        let point = mantissa.utf8.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.utf8.endIndex
        var n = mantissa.utf8.distance(from: mantissa.utf8.startIndex, to: point) + exponent
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            n -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let k = digits.count
        let d = String(decoding: digits, as: UTF8.self)
        if k <= n && n <= 21 { return d + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 { return String(d.prefix(n)) + "." + String(d.dropFirst(n)) }
        if -6 < n && n <= 0 { return "0." + String(repeating: "0", count: -n) + d }
        let e = n - 1
        let sign = e < 0 ? "-" : "+"
        let head = k == 1 ? d : String(d.prefix(1)) + "." + String(d.dropFirst())
        return head + "e" + sign + String(abs(e))
    }
}
