/// The shape of a well-formed multi-byte UTF-8 sequence, from its lead byte: its length and
/// the allowed range of its second byte (which rules out overlongs, surrogates and values over
/// U+10FFFF); later bytes are 0x80...0xBF. Shared by `JSONScanner` and `TreeParser`.
struct UTF8Lead {
    let length: Int
    let secondLow: UInt8
    let secondHigh: UInt8

    /// nil for a byte that cannot start a multi-byte sequence.
    @inline(__always)
    init?(_ b0: UInt8) {
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        secondLow = low
        secondHigh = high
    }
}
