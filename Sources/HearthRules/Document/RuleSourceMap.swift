/// Where each Unicode scalar of a rule's expression is in the rules file: the expression is a JSON
/// string, so escapes (`\"`, `\u00e9`) and lines broken inside a string make the two differ. Kept
/// as runs of scalars on consecutive columns of one line, so a rule on one line costs one run.
struct RuleSourceMap: Sendable {
    private struct Run: Sendable {
        let offset: Int
        let position: SourcePosition
    }

    private let runs: [Run]

    /// - Parameter positions: the position of each scalar of the expression, in order.
    init(_ positions: [SourcePosition]) {
        var runs: [Run] = []
        for (offset, position) in positions.enumerated() {
            if let last = runs.last, last.position.line == position.line,
                last.position.column + (offset - last.offset) == position.column
            {
                continue
            }
            runs.append(Run(offset: offset, position: position))
        }
        self.runs = runs
    }

    /// The expression of a rule written as a JSON boolean: no map.
    static let none = RuleSourceMap([])

    /// The position of the scalar at `offset` (past the end: just after the last one).
    func position(_ offset: Int) -> SourcePosition? {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].offset <= offset { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let run = runs[low - 1]
        return SourcePosition(line: run.position.line, column: run.position.column + offset - run.offset)
    }
}
