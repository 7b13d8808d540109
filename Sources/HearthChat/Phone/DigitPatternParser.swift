/// Reads the regular-expression subset of `DigitPattern` into a tree; anything else is an error, so a
/// regenerated table that starts using more of the syntax fails its test instead of matching wrongly.
struct DigitPatternParser {
    private let pattern: String
    private let characters: [UInt8]
    private var index = 0
    /// Capturing groups seen so far, numbered from 1 in the order their `(` appears.
    private(set) var groupCount = 0

    /// Repetition bounds past which a pattern is refused: phone numbers have at most 17 national digits.
    static let maximumRepetition = 20

    init(_ pattern: String) {
        self.pattern = pattern
        self.characters = Array(pattern.utf8)
    }

    mutating func parse() throws(DigitPatternError) -> DigitPatternNode {
        let tree = try parseAlternation()
        guard index == characters.count else { throw failure("unexpected '\(Unicode.Scalar(characters[index]))'") }
        return tree
    }

    private func failure(_ problem: String) -> DigitPatternError {
        DigitPatternError(pattern: pattern, offset: index, problem: problem)
    }

    private var current: UInt8? { index < characters.count ? characters[index] : nil }

    private mutating func parseAlternation() throws(DigitPatternError) -> DigitPatternNode {
        var options = [try parseSequence()]
        while current == UInt8(ascii: "|") {
            index += 1
            options.append(try parseSequence())
        }
        return options.count == 1 ? options[0] : .alternation(options)
    }

    private mutating func parseSequence() throws(DigitPatternError) -> DigitPatternNode {
        var items: [DigitPatternNode] = []
        while let character = current, character != UInt8(ascii: "|"), character != UInt8(ascii: ")") {
            let atom = try parseAtom()
            items.append(try parseQuantifier(of: atom))
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func parseAtom() throws(DigitPatternError) -> DigitPatternNode {
        guard let character = current else { throw failure("the pattern ends early") }
        index += 1
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .digits(1 << UInt16(character - UInt8(ascii: "0")))
        case UInt8(ascii: "\\"):
            guard current == UInt8(ascii: "d") else { throw failure("only \\d is understood after a backslash") }
            index += 1
            return .digits(0x3FF)
        case UInt8(ascii: "["):
            return .digits(try parseClass())
        case UInt8(ascii: "("):
            var capture: Int? = nil
            if current == UInt8(ascii: "?") {
                guard index + 1 < characters.count, characters[index + 1] == UInt8(ascii: ":") else {
                    throw failure("only (?: groups are understood")
                }
                index += 2
            } else {
                groupCount += 1
                capture = groupCount
            }
            let inner = try parseAlternation()
            guard current == UInt8(ascii: ")") else { throw failure("a group is not closed") }
            index += 1
            return .group(inner, capture: capture)
        case UInt8(ascii: "$"):
            return .end
        default:
            index -= 1
            throw failure("unexpected '\(Unicode.Scalar(character))'")
        }
    }

    /// `[2-9]`, `[13-689]`, `[^0]`: the set of digits as a mask.
    private mutating func parseClass() throws(DigitPatternError) -> UInt16 {
        var mask: UInt16 = 0
        let negated = current == UInt8(ascii: "^")
        if negated { index += 1 }
        while let character = current, character != UInt8(ascii: "]") {
            index += 1
            let low: Int
            if character == UInt8(ascii: "\\") {
                guard current == UInt8(ascii: "d") else { throw failure("only \\d is understood after a backslash") }
                index += 1
                mask |= 0x3FF
                continue
            }
            guard let digit = Self.digit(character) else {
                throw failure("unexpected '\(Unicode.Scalar(character))' in a class")
            }
            low = digit
            var high = low
            if current == UInt8(ascii: "-"), index + 1 < characters.count, let end = Self.digit(characters[index + 1]) {
                index += 2
                high = end
            }
            guard low <= high else { throw failure("the range \(low)-\(high) is empty") }
            for value in low...high { mask |= 1 << UInt16(value) }
        }
        guard current == UInt8(ascii: "]") else { throw failure("a class is not closed") }
        index += 1
        return negated ? ~mask & 0x3FF : mask
    }

    private mutating func parseQuantifier(of atom: DigitPatternNode) throws(DigitPatternError) -> DigitPatternNode {
        switch current {
        case UInt8(ascii: "?"):
            index += 1
            return .repetition(atom, minimum: 0, maximum: 1)
        case UInt8(ascii: "{"):
            index += 1
            let minimum = try parseNumber()
            var maximum = minimum
            if current == UInt8(ascii: ",") {
                index += 1
                guard current != UInt8(ascii: "}") else {
                    throw failure("open-ended repetition {n,} is not understood")
                }
                maximum = try parseNumber()
            }
            guard current == UInt8(ascii: "}") else { throw failure("a repetition is not closed") }
            index += 1
            guard minimum <= maximum, maximum <= Self.maximumRepetition else {
                throw failure("the repetition {\(minimum),\(maximum)} is out of bounds")
            }
            return .repetition(atom, minimum: minimum, maximum: maximum)
        case UInt8(ascii: "*"), UInt8(ascii: "+"):
            throw failure("unbounded repetition is not understood")
        default:
            return atom
        }
    }

    private mutating func parseNumber() throws(DigitPatternError) -> Int {
        var value = 0
        var digits = 0
        while let character = current, let digit = Self.digit(character), digits < 3 {
            value = value * 10 + digit
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw failure("a repetition needs a number") }
        return value
    }

    private static func digit(_ character: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character) ? Int(character - UInt8(ascii: "0")) : nil
    }
}
