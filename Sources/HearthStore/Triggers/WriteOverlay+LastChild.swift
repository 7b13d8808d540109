import HearthCore

extension WriteOverlay {
    /// The last child of `path` in key order after the changes, with its subtree: the stored
    /// children are read backwards from the end, skipping the ones the changes touch (each
    /// read once, from the changes), so the cost is the number of touched children, not the
    /// number of children.
    func lastChild(at path: DataPath) -> (key: ChildKey, node: Node)? {
        switch last(at: path) {
        case nil: return nil
        case .changed(let key, let node): return (key, node)
        case .stored(let key):
            guard let node = reader.node(at: path.child(key)) else { return nil }
            return (key, node)
        }
    }

    /// The key of `path`'s last child after the changes (`lastChild(at:)` without reading a
    /// stored child's subtree).
    func lastChildKey(at path: DataPath) -> ChildKey? {
        switch last(at: path) {
        case nil: return nil
        case .changed(let key, _): return key
        case .stored(let key): return key
        }
    }

    private enum Last {
        /// A child the changes wrote, with its node after them.
        case changed(ChildKey, Node)
        /// A stored child the changes do not touch.
        case stored(ChildKey)
    }

    private func last(at path: DataPath) -> Last? {
        if let index = covering(path) {
            let covering = entries[index]
            guard case .children(let children, _)? = covering.node?.descendant(covering.path.relative(path)!),
                let last = children.last
            else { return nil }
            return .changed(last.key, last.node)
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
        // A new child past the end of a list whose end the writer knows: every stored child
        // sorts before it, and none needs reading.
        if let best, let shapes, shapes.isPastTail(reader.keys.dataKey(path.child(best.key))) {
            return .changed(best.key, best.node)
        }
        var before: ChildKey?
        while let stored = reader.lastChildKey(at: path, before: before) {
            if let best, stored < best.key { break }
            if !touched.contains(stored) { return .stored(stored) }
            before = stored
        }
        return best.map { .changed($0.key, $0.node) }
    }
}
