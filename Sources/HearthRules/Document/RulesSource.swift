/// A 1-based line and column (in Unicode scalars) in a rules file.
public struct SourcePosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        lhs.line != rhs.line ? lhs.line < rhs.line : lhs.column < rhs.column
    }

    public var description: String { "\(line):\(column)" }
}

/// The text of a rules file, kept verbatim, with its name for diagnostics.
public struct RulesSource: Sendable {
    public let text: String
    public let fileName: String
    /// The lines of `text` without their line terminators, split by scalars (as positions are
    /// counted: "\r\n" is one Character, so splitting Characters would not see its "\n").
    let lines: [Substring.UnicodeScalarView]

    public init(text: String, fileName: String) {
        self.text = text
        self.fileName = fileName
        self.lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.last == "\r" ? line.dropLast() : line
        }
    }

    /// The source line at a 1-based line number, or "" past the end.
    func line(_ number: Int) -> String {
        number >= 1 && number <= lines.count ? String(String.UnicodeScalarView(lines[number - 1])) : ""
    }
}
