import HearthCore

/// One location a write replaces, with its resolved value.
struct PlannedEntry {
    /// Absolute path; for a priority entry, the path of the node whose priority is set.
    let path: DataPath
    let isPriority: Bool
    /// The new node (nil deletes); for a priority entry, a leaf holding the priority or nil.
    let node: Node?
    /// `keys.dataKey(path)`.
    let dataKey: [UInt8]
    /// The leaf at the location before the write, when the writer remembers it
    /// (`SubtreeShapes.Shape.leaf`, staged writes included); nil: unknown.
    var previousLeaf: LeafValue? = nil
}

extension IndexValueEncoding.Indexed {
    /// Classifies an in-memory node for indexing.
    init(_ node: Node?) {
        switch node {
        case nil: self = .missing
        case .leaf(let value, _)?: self = .leaf(value)
        case .children?: self = .object
        }
    }
}
