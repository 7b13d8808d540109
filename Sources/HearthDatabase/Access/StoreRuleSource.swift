import HearthCore
import HearthRules
import HearthStore

/// The database as rules read it, over one store snapshot: each rule reads just the nodes it
/// names (`exists()` and `val()` of a leaf are one seek). With a `recorder`, every path read is
/// noted: a listen's read permission depends on those paths only, so only writes touching them
/// can revoke it.
struct StoreRuleSource: RuleDataSource {
    let reader: NamespaceReader
    let recorder: ReadLog?

    init(_ reader: NamespaceReader, recorder: ReadLog? = nil) {
        self.reader = reader
        self.recorder = recorder
    }

    func node(at path: DataPath) -> Node? {
        recorder?.note(path)
        return reader.node(at: path)
    }

    func summary(at path: DataPath) -> RuleNodeSummary {
        recorder?.note(path)
        switch reader.summary(at: path) {
        case .absent: return .absent
        case .leaf(let value): return .leaf(value)
        case .children: return .children
        }
    }

    func priority(at path: DataPath) -> Priority? {
        recorder?.note(path)
        return reader.priority(at: path)
    }
}
