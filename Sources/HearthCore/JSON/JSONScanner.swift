// The byte-level reader shared by `JSONParser`, `TreeParser` and `JSONEventParser`.
// Every scanning method returns nil when the input ends before the token does (the streaming
// parser then waits for more bytes; the whole-buffer parsers report an unexpected end).

/// A cursor over UTF-8 JSON text in memory the caller keeps alive.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let end: Int
    var position: Int
    /// Offset of `base` in the whole document, for error messages.
    let documentOffset: Int
    let allowComments: Bool
    /// Reused buffer for strings with escapes.
    var scratch: [UInt8] = []

    init(base: UnsafePointer<UInt8>, count: Int, documentOffset: Int = 0, allowComments: Bool = false) {
        self.base = base
        self.end = count
        self.position = 0
        self.documentOffset = documentOffset
        self.allowComments = allowComments
    }

    /// The document offset of `index`, for messages.
    @inline(__always)
    func byte(_ index: Int) -> Int { documentOffset + index }

    @inline(__always)
    var atEnd: Bool { position >= end }

    @inline(__always)
    func peek() -> UInt8? { position < end ? base[position] : nil }

    /// Skips whitespace (and comments when allowed). Returns false when a comment is cut off by
    /// the end of input.
    @inline(__always)
    mutating func skipWhitespace() throws -> Bool {
        while position < end {
            let b = base[position]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 {
                position += 1
            } else if b == UInt8(ascii: "/") && allowComments {
                guard try skipComment() else { return false }
            } else {
                return true
            }
        }
        return true
    }

    mutating func skipComment() throws -> Bool {
        let start = position
        guard position + 1 < end else { return false }
        let next = base[position + 1]
        if next == UInt8(ascii: "/") {
            position += 2
            while position < end && base[position] != 0x0A { position += 1 }
            return true
        }
        if next == UInt8(ascii: "*") {
            var i = position + 2
            while i + 1 < end {
                if base[i] == UInt8(ascii: "*") && base[i + 1] == UInt8(ascii: "/") {
                    position = i + 2
                    return true
                }
                i += 1
            }
            throw CoreError.unterminatedComment(byte(start))
        }
        throw CoreError.expectedValue(byte(start), found: base[position])
    }

    // MARK: Literals

    enum Literal { case `true`, `false`, null }

    /// Reads `true`, `false` or `null` at the cursor.
    mutating func scanLiteral() throws -> Literal? {
        let start = position
        let word: StaticString
        let literal: Literal
        switch base[position] {
        case UInt8(ascii: "t"): word = "true"; literal = .true
        case UInt8(ascii: "f"): word = "false"; literal = .false
        default: word = "null"; literal = .null
        }
        let length = word.utf8CodeUnitCount
        let w = word.utf8Start
        var i = 0
        while i < length {
            if start + i >= end { return nil }
            if base[start + i] != w[i] { throw CoreError.invalidLiteral(byte(start)) }
            i += 1
        }
        position = start + length
        return literal
    }

    // MARK: Strings

    /// Reads a string whose opening quote is at the cursor.
    mutating func scanString() throws -> String? {
        let start = position
        var i = position + 1
        // Fast path: ASCII without escapes.
        while i &+ 8 <= end {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            // A byte is interesting if it is '"' (0x22), '\\' (0x5C), < 0x20 or >= 0x80.
            let quote = word ^ 0x2222_2222_2222_2222
            let slash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let ones: UInt64 = 0x0101_0101_0101_0101
            let high: UInt64 = 0x8080_8080_8080_8080
            let hasQuote = (quote &- ones) & ~quote & high
            let hasSlash = (slash &- ones) & ~slash & high
            let hasLow = (word &- 0x2020_2020_2020_2020) & ~word & high
            let hasHigh = word & high
            if (hasQuote | hasSlash | hasLow | hasHigh) != 0 { break }
            i &+= 8
        }
        while i < end {
            let b = base[i]
            if b == 0x22 {
                position = i + 1
                return String(
                    decoding: UnsafeBufferPointer(start: base + start + 1, count: i - start - 1),
                    as: UTF8.self
                )
            }
            if b == 0x5C || b < 0x20 || b >= 0x80 { break }
            i += 1
        }
        if i >= end { return nil }
        return try scanStringSlow(start: start, from: i)
    }

    /// Continues a string with escapes or non-ASCII bytes, validating UTF-8.
    private mutating func scanStringSlow(start: Int, from: Int) throws -> String? {
        var i = from
        var escaped = false
        var runStart = start + 1
        scratch.removeAll(keepingCapacity: true)
        while i < end {
            let b = base[i]
            if b == 0x22 {
                position = i + 1
                if !escaped {
                    return String(
                        decoding: UnsafeBufferPointer(start: base + start + 1, count: i - start - 1),
                        as: UTF8.self
                    )
                }
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart))
                return String(decoding: scratch, as: UTF8.self)
            } else if b == 0x5C {
                escaped = true
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart))
                guard let next = try scanEscape(at: i) else { return nil }
                i = next
                runStart = i
            } else if b < 0x20 {
                throw CoreError.controlCharacterInString(byte(i))
            } else if b < 0x80 {
                i += 1
            } else {
                guard let next = try validateUTF8(at: i) else { return nil }
                i = next
            }
        }
        return nil
    }

    /// Validates one multi-byte UTF-8 sequence starting at `i`; returns the index after it.
    @inline(__always)
    private func validateUTF8(at i: Int) throws -> Int? {
        guard let lead = UTF8Lead(base[i]) else { throw CoreError.invalidUTF8(byte(i)) }
        let length = lead.length
        let low = lead.secondLow
        let high = lead.secondHigh
        if i + length > end {
            // Check what is there so that garbage is reported without waiting for more input.
            var k = 1
            while i + k < end {
                let c = base[i + k]
                if k == 1 ? (c < low || c > high) : (c < 0x80 || c > 0xBF) { throw CoreError.invalidUTF8(byte(i)) }
                k += 1
            }
            return nil
        }
        let b1 = base[i + 1]
        if b1 < low || b1 > high { throw CoreError.invalidUTF8(byte(i)) }
        var k = 2
        while k < length {
            let c = base[i + k]
            if c < 0x80 || c > 0xBF { throw CoreError.invalidUTF8(byte(i)) }
            k += 1
        }
        return i + length
    }

    /// Decodes the escape at `i` (a backslash) into `scratch`; returns the index after it.
    private mutating func scanEscape(at i: Int) throws -> Int? {
        guard i + 1 < end else { return nil }
        let c = base[i + 1]
        switch c {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = try hex4(at: i + 2) else { return nil }
            var scalarValue = UInt32(unit)
            var next = i + 6
            if unit >= 0xD800 && unit <= 0xDBFF {
                // Needs a low surrogate right after. Decided as soon as a byte shows it is not
                // there (a closing quote may be the input's last byte).
                guard i + 6 < end else { return nil }
                guard base[i + 6] == 0x5C else { throw CoreError.loneSurrogate(byte(i), hexString(unit)) }
                guard i + 7 < end else { return nil }
                guard base[i + 7] == UInt8(ascii: "u") else {
                    throw CoreError.loneSurrogate(byte(i), hexString(unit))
                }
                guard let low = try hex4(at: i + 8) else { return nil }
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw CoreError.loneSurrogate(byte(i), hexString(unit))
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                next = i + 12
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw CoreError.loneSurrogate(byte(i), hexString(unit))
            }
            appendUTF8(scalarValue)
            return next
        default:
            throw CoreError.invalidEscape(byte(i))
        }
        return i + 2
    }

    private func hexString(_ unit: UInt16) -> String {
        let s = String(unit, radix: 16, uppercase: false)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    private func hex4(at i: Int) throws -> UInt16? {
        var value: UInt16 = 0
        for k in 0..<4 {
            guard i + k < end else { return nil }
            let c = base[i + k]
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x41...0x46: digit = c - 0x41 + 10
            case 0x61...0x66: digit = c - 0x61 + 10
            default: throw CoreError.invalidEscape(byte(i - 2))
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80: scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (v >> 6)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (v >> 12)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (v >> 18)))
            scratch.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    // MARK: Numbers

    /// Reads a number at the cursor (a '-' or a digit). With `isFinal` false, a number that
    /// reaches the end of input is incomplete (nil).
    mutating func scanNumber(isFinal: Bool) throws -> Double? {
        let start = position
        var i = position
        var negative = false
        if base[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0  // decimal exponent applied to mantissa
        var digitsDropped = false
        // Integer part.
        guard i < end else { return isFinal ? try fail(start) : nil }
        let first = base[i]
        guard first >= 0x30 && first <= 0x39 else { throw CoreError.invalidNumber(byte(start)) }
        if first == 0x30 {
            i += 1
        } else {
            while i < end {
                let d = base[i] &- 0x30
                if d > 9 { break }
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    if mantissa != 0 { significantDigits += 1 }
                } else {
                    exponent += 1
                    if d != 0 { digitsDropped = true }
                }
                i += 1
            }
        }
        if i < end && base[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < end {
                let d = base[i] &- 0x30
                if d > 9 { break }
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    if mantissa != 0 { significantDigits += 1 }
                    exponent -= 1
                } else if d != 0 {
                    digitsDropped = true
                }
                i += 1
            }
            if i == fractionStart {
                if i >= end && !isFinal { return nil }
                throw CoreError.invalidNumber(byte(start))
            }
        }
        if i < end && (base[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < end && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) {
                expNegative = base[i] == UInt8(ascii: "-")
                i += 1
            }
            let expStart = i
            var e = 0
            while i < end {
                let d = base[i] &- 0x30
                if d > 9 { break }
                if e < 100_000 { e = e * 10 + Int(d) }
                i += 1
            }
            if i == expStart {
                if i >= end && !isFinal { return nil }
                throw CoreError.invalidNumber(byte(start))
            }
            exponent += expNegative ? -e : e
        }
        if i >= end && !isFinal { return nil }
        position = i
        // Fast paths (exact): Clinger's algorithm for small mantissas and exponents.
        if !digitsDropped && mantissa < (1 << 53) {
            var value = Double(mantissa)
            if exponent == 0 {
                return negative ? -value : value
            }
            if exponent > 0 && exponent <= 22 {
                value *= JSONScanner.powersOfTen[exponent]
                return negative ? -value : value
            } else if exponent < 0 && exponent >= -22 {
                value /= JSONScanner.powersOfTen[-exponent]
                return negative ? -value : value
            }
        }
        if mantissa == 0 && !digitsDropped { return negative ? -0.0 : 0.0 }
        // Slow path: the C library's correctly rounded conversion.
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw CoreError.numberOutOfRange(byte(start), text: text)
        }
        return value
    }

    private func fail(_ start: Int) throws -> Double? {
        throw CoreError.invalidNumber(byte(start))
    }

    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
