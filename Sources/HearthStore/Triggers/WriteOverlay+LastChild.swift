import HearthCore

extension WriteOverlay {
    /// The last child of `path` in key order after the changes, with its subtree: the stored
    /// children are read backwards from the end, skipping the ones the changes touch (each
    /// read once, from the changes), so the cost is the number of touched children, not the
    /// number of children.
    func lastChild(at path: DataPath) -> (key: ChildKey, node: Node)? {
        if let index = covering(path) {
            let covering = entries[index]
            guard case .children(let children, _)? = covering.node?.descendant(covering.path.relative(path)!),
                let last = children.last
            else { return nil }
            return (last.key, last.node)
        }
        var touched = Set<ChildKey>()
        for changed in entries.map(\.path) + priorities.map(\.owner)
        where changed.depth > path.depth && path.contains(changed) {
            touched.insert(changed.keys[path.depth])
        }
        var best: (key: ChildKey, node: Node)?
        for key in touched {
            guard let node = value(at: path.child(key)) else { continue }
            if let current = best, key < current.key { continue }
            best = (key, node)
        }
        var before: ChildKey?
        while let stored = reader.lastChild(at: path, before: before) {
            if let best, stored.key < best.key { break }
            if !touched.contains(stored.key) { return stored }
            before = stored.key
        }
        return best
    }
}
