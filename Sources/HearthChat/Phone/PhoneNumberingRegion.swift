/// A `PhoneRegion` made ready for parsing: its patterns compiled, its lengths a bit set.
final class PhoneNumberingRegion: Sendable {
    /// What libphonenumber's length test says of a national number.
    enum LengthVerdict: Equatable, Sendable {
        case possible, possibleLocalOnly, tooShort, tooLong, invalidLength
    }

    /// A piece of a national-prefix transform rule ("9$1": the digit 9, then group 1).
    enum TransformPart: Equatable, Sendable {
        case digit(UInt8)
        case group(Int)
    }

    let row: PhoneRegion
    var code: String { row.code }
    var callingCode: Int { row.callingCode }
    let callingCodeDigits: [UInt8]
    let internationalPrefix: DigitPattern?
    let nationalPrefixForParsing: DigitPattern?
    let nationalPrefixTransform: [TransformPart]?
    let leadingDigits: DigitPattern?
    let nationalNumber: DigitPattern?
    let numberTypes: DigitPattern?
    private let possibleLengths: UInt32
    private let localOnlyLengths: UInt32
    private let shortestLength: Int
    private let longestLength: Int

    /// Compiles `row`'s patterns; each one that does not compile is left out (it then never matches) and
    /// reported in `errors`, which the tests require to be empty.
    init(_ row: PhoneRegion, errors: inout [DigitPatternError]) {
        func compile(_ source: String?) -> DigitPattern? {
            guard let source else { return nil }
            do {
                return try DigitPattern(source)
            } catch {
                errors.append(error)
                return nil
            }
        }
        self.row = row
        self.callingCodeDigits = String(row.callingCode).utf8.map { $0 - UInt8(ascii: "0") }
        self.internationalPrefix = compile(row.internationalPrefix)
        self.nationalPrefixForParsing = compile(row.nationalPrefixForParsing)
        self.nationalPrefixTransform = row.nationalPrefixTransformRule.map(Self.transformParts)
        self.leadingDigits = compile(row.leadingDigits)
        self.nationalNumber = compile(row.nationalNumberPattern)
        self.numberTypes = compile(row.numberTypesPattern)
        self.possibleLengths = row.possibleLengths.reduce(0) { $0 | 1 << UInt32(min($1, 31)) }
        self.localOnlyLengths = row.localOnlyLengths.reduce(0) { $0 | 1 << UInt32(min($1, 31)) }
        self.shortestLength = row.possibleLengths.min() ?? Int.max
        self.longestLength = row.possibleLengths.max() ?? 0
    }

    /// "9$1" → [.digit(9), .group(1)].
    static func transformParts(_ rule: String) -> [TransformPart] {
        var parts: [TransformPart] = []
        var afterDollar = false
        for character in rule {
            guard let value = character.wholeNumberValue else {
                afterDollar = character == "$"
                continue
            }
            parts.append(afterDollar ? .group(value) : .digit(UInt8(value)))
            afterDollar = false
        }
        return parts
    }

    /// Whether `digits` is, as a whole, a national number of the region.
    func isViable(_ digits: [UInt8]) -> Bool {
        nationalNumber?.fullMatch(digits) ?? false
    }

    /// libphonenumber's `testNumberLength` for any number type: against the general possible lengths.
    func lengthVerdict(_ length: Int) -> LengthVerdict {
        let bit: UInt32 = length < 32 ? 1 << UInt32(length) : 0
        if localOnlyLengths & bit != 0 { return .possibleLocalOnly }
        if length < shortestLength { return .tooShort }
        if length > longestLength { return .tooLong }
        return possibleLengths & bit != 0 ? .possible : .invalidLength
    }
}
