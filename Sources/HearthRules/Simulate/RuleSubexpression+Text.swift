extension RuleSubexpression {
    /// The tree as text, one part a line, its parts indented below it:
    ///
    ///     data.child('owner').val() === auth.uid = false   [3:19]
    ///       data.child('owner').val() = "amy"   [3:19]
    func appendLines(to lines: inout [String], indent: String) {
        lines.append("\(indent)\(Self.oneLine(text)) = \(value.shown)   [\(position)]")
        for child in children { child.appendLines(to: &lines, indent: indent + "  ") }
    }

    /// A rule broken across lines, on one line (each line break and the indentation after it
    /// become one space).
    private static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        var out = ""
        var skippingIndentation = false
        for character in text {
            if character.isNewline {
                out.append(" ")
                skippingIndentation = true
            } else if skippingIndentation && (character == " " || character == "\t") {
                continue
            } else {
                skippingIndentation = false
                out.append(character)
            }
        }
        return out
    }
}
