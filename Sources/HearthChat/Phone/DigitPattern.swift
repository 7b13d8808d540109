/// A regular expression over decimal digits, in the subset libphonenumber's metadata uses: digits, `\d`,
/// classes such as `[2-9]`, groups `(…)` and `(?:…)`, alternation `|`, `?`, `{n}`, `{n,m}` and a final `$`.
///
/// Compiled once into a small program for a backtracking matcher that remembers the (instruction, position)
/// pairs it has tried (RE2's "bit state"), so a match costs at most instructions × (digits + 1) steps whatever
/// the pattern, and gives the same answer as Python's `re.match` / `re.fullmatch`: alternatives in order,
/// greedy repetition. Immutable, so one compiled table serves every thread.
final class DigitPattern: Sendable {
    enum Operation: UInt8, Sendable {
        /// Consumes one digit in `mask` (bit d for digit d).
        case digit
        /// Tries `next` first, then `alternative`.
        case split
        case jump
        /// Records the position in capture slot `next`.
        case save
        /// Succeeds only at the end of the input (`$`).
        case end
        case match
    }

    struct Instruction: Sendable {
        var operation: Operation
        var mask: UInt16 = 0
        var next: Int32 = 0
        var alternative: Int32 = 0
    }

    /// The pattern as written in the table.
    let source: String
    let program: [Instruction]
    /// How many capturing groups the pattern has (`$1` is the first).
    let groupCount: Int
    /// The digits a match can start with, and whether a match can be empty: a cheap refusal before matching.
    let firstDigits: UInt16
    let matchesEmpty: Bool
    /// The digits, when the pattern is nothing but a fixed run of them ("00", "011", "8"): matched directly.
    let literal: [UInt8]?

    /// Compiles `source`; throws a `DigitPatternError` naming what it cannot read.
    init(_ source: String) throws(DigitPatternError) {
        var parser = DigitPatternParser(source)
        let tree = try parser.parse()
        self.source = source
        self.groupCount = parser.groupCount
        var emitter = DigitPatternEmitter()
        emitter.emit(tree)
        emitter.append(Instruction(operation: .match))
        self.program = emitter.program
        self.firstDigits = tree.firstDigits
        self.matchesEmpty = tree.matchesEmpty
        self.literal = tree.literalDigits
    }
}

/// Why a pattern of the table cannot be compiled.
struct DigitPatternError: Error, Sendable, CustomStringConvertible {
    let pattern: String
    let offset: Int
    let problem: String

    var description: String {
        "Cannot compile the digit pattern '\(pattern)' at character \(offset): \(problem)."
    }
}

/// A parsed pattern, before it becomes a program.
indirect enum DigitPatternNode: Sendable {
    case digits(UInt16)
    case sequence([DigitPatternNode])
    case alternation([DigitPatternNode])
    case group(DigitPatternNode, capture: Int?)
    case repetition(DigitPatternNode, minimum: Int, maximum: Int)
    case end

    var matchesEmpty: Bool {
        switch self {
        case .digits: false
        case .sequence(let items): items.allSatisfy(\.matchesEmpty)
        case .alternation(let options): options.contains { $0.matchesEmpty }
        case .group(let inner, _): inner.matchesEmpty
        case .repetition(let inner, let minimum, _): minimum == 0 || inner.matchesEmpty
        case .end: true
        }
    }

    var firstDigits: UInt16 {
        switch self {
        case .digits(let mask): return mask
        case .sequence(let items):
            var mask: UInt16 = 0
            for item in items {
                mask |= item.firstDigits
                if !item.matchesEmpty { break }
            }
            return mask
        case .alternation(let options): return options.reduce(0) { $0 | $1.firstDigits }
        case .group(let inner, _), .repetition(let inner, _, _): return inner.firstDigits
        case .end: return 0
        }
    }

    /// The fixed digits this node stands for, if it is nothing but single digits in a row.
    var literalDigits: [UInt8]? {
        switch self {
        case .digits(let mask):
            guard mask.nonzeroBitCount == 1 else { return nil }
            return [UInt8(mask.trailingZeroBitCount)]
        case .sequence(let items):
            var digits: [UInt8] = []
            for item in items {
                guard let more = item.literalDigits else { return nil }
                digits += more
            }
            return digits.isEmpty ? nil : digits
        case .group(let inner, capture: nil): return inner.literalDigits
        default: return nil
        }
    }
}

/// Lays a parsed pattern out as a program for the matcher.
struct DigitPatternEmitter {
    typealias Instruction = DigitPattern.Instruction

    private(set) var program: [Instruction] = []

    mutating func append(_ instruction: Instruction) {
        program.append(instruction)
    }

    private var here: Int32 { Int32(program.count) }

    mutating func emit(_ node: DigitPatternNode) {
        switch node {
        case .digits(let mask):
            append(Instruction(operation: .digit, mask: mask))
        case .sequence(let items):
            for item in items { emit(item) }
        case .alternation(let options):
            var jumpsToEnd: [Int] = []
            for (index, option) in options.enumerated() {
                let isLast = index == options.count - 1
                let split = program.count
                if !isLast { append(Instruction(operation: .split)) }
                if !isLast { program[split].next = here }
                emit(option)
                if !isLast {
                    jumpsToEnd.append(program.count)
                    append(Instruction(operation: .jump))
                    program[split].alternative = here
                }
            }
            for jump in jumpsToEnd { program[jump].next = here }
        case .group(let inner, let capture):
            if let capture { append(Instruction(operation: .save, next: Int32(2 * (capture - 1)))) }
            emit(inner)
            if let capture { append(Instruction(operation: .save, next: Int32(2 * (capture - 1) + 1))) }
        case .repetition(let inner, let minimum, let maximum):
            for _ in 0..<minimum { emit(inner) }
            // Greedy optional copies, nested: (x(x(x)?)?)?, every one leaving to the same exit.
            var splits: [Int] = []
            for _ in minimum..<maximum {
                splits.append(program.count)
                append(Instruction(operation: .split, next: here + 1))
                emit(inner)
            }
            for split in splits { program[split].alternative = here }
        case .end:
            append(Instruction(operation: .end))
        }
    }
}
