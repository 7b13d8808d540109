extension JSONRenderer {
    /// Appends a number as JavaScript's `String(x)` writes it: integral values below 1e21 with
    /// no decimal point (`-0` as `0`), otherwise the shortest digits that round-trip, in plain
    /// notation for exponents -7 < e < 21 and as `1.5e-7` / `1e+21` beyond. Non-finite values
    /// (which never occur in the tree) are written as `null`, as `JSON.stringify` does.
    public static func appendNumber(_ x: Double, into out: inout [UInt8]) {
        if x == 0 {
            out.append(0x30)
            return
        }
        guard x.isFinite else {
            appendNull(into: &out)
            return
        }
        if x.rounded(.towardZero) == x && abs(x) < 9.2e18 {
            appendInteger(Int64(x), into: &out)
            return
        }
        appendShortest(x, into: &out)
    }

    /// The number as JavaScript's `String(x)`.
    public static func numberString(_ x: Double) -> String {
        var out: [UInt8] = []
        appendNumber(x, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    static func appendInteger(_ value: Int64, into out: inout [UInt8]) {
        var v = value.magnitude
        if value < 0 { out.append(UInt8(ascii: "-")) }
        if v < 10 {
            out.append(0x30 + UInt8(v))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var i = 20
            while v > 0 {
                i -= 1
                buffer[i] = 0x30 + UInt8(v % 10)
                v /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<20]))
        }
    }

    /// Shortest round-trip digits (from Swift's own shortest formatting), laid out by the
    /// ECMAScript Number::toString rules.
    static func appendShortest(_ x: Double, into out: inout [UInt8]) {
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        var pointPosition: Int?
        var exponent = 0
        var exponentNegative = false
        var inExponent = false
        for c in x.magnitude.description.utf8 {
            if inExponent {
                if c == UInt8(ascii: "-") {
                    exponentNegative = true
                } else if c >= 0x30 && c <= 0x39 {
                    exponent = exponent * 10 + Int(c - 0x30)
                }
            } else if c == UInt8(ascii: ".") {
                pointPosition = digits.count
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                inExponent = true
            } else if c >= 0x30 && c <= 0x39 {
                digits.append(c)
            }
        }
        if exponentNegative { exponent = -exponent }
        var point = pointPosition ?? digits.count
        // Strip leading zeros (each moves the point left) and trailing zeros.
        var leading = 0
        while leading < digits.count - 1 && digits[leading] == 0x30 { leading += 1 }
        digits.removeFirst(leading)
        point -= leading
        while digits.count > 1 && digits.last == 0x30 { digits.removeLast() }
        // value = 0.d1d2...dk × 10^n
        let n = point + exponent
        let k = digits.count
        if x < 0 { out.append(UInt8(ascii: "-")) }
        if k <= n && n <= 21 {
            out.append(contentsOf: digits)
            for _ in 0..<(n - k) { out.append(0x30) }
        } else if 0 < n && n <= 21 {
            out.append(contentsOf: digits[0..<n])
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: digits[n...])
        } else if -6 < n && n <= 0 {
            out.append(0x30)
            out.append(UInt8(ascii: "."))
            for _ in 0..<(-n) { out.append(0x30) }
            out.append(contentsOf: digits)
        } else {
            let e = n - 1
            out.append(digits[0])
            if k > 1 {
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: digits[1...])
            }
            out.append(UInt8(ascii: "e"))
            out.append(e < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            appendInteger(Int64(abs(e)), into: &out)
        }
    }
}
