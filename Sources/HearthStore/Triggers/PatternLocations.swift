import HearthCore

/// Finds the locations matching a pattern that a write may change: the one above each written
/// path, or every stored and new match under a write above the pattern. Shared by write
/// triggers and lookup indexes.
struct PatternLocations {
    let reader: NamespaceReader

    /// The locations matching `pattern` whose value the changes may alter, each once, in order.
    func locations(of pattern: TriggerPattern, changedBy overlay: WriteOverlay) -> [DataPath] {
        var found: [DataPath] = []
        var seen = Set<DataPath>()
        func add(_ path: DataPath) {
            if seen.insert(path).inserted { found.append(path) }
        }
        // A priority changes the value of its owner and what contains it, not what lies below.
        let priorities = overlay.priorities.map(\.owner).filter { $0.depth >= pattern.depth }
        for path in overlay.entries.map(\.path) + priorities {
            if path.depth >= pattern.depth {
                let location = DataPath(keys: Array(path.keys[0..<pattern.depth]))
                if pattern.match(location) != nil { add(location) }
            } else if pattern.leadsTo(path) {
                // A write above the pattern: every matching location it removes or creates.
                expand(pattern, storedAt: path, add)
                if let node = overlay.entries.first(where: { $0.path == path })?.node {
                    expand(pattern, in: node, at: path, add)
                }
            }
        }
        return found
    }

    /// Adds the stored locations matching `pattern` at or below `path`.
    func expand(_ pattern: TriggerPattern, storedAt path: DataPath, _ add: (DataPath) -> Void) {
        if path.depth == pattern.depth {
            add(path)
            return
        }
        switch pattern.segments[path.depth] {
        case .key(let key):
            expand(pattern, storedAt: path.child(key), add)
        case .wildcard:
            guard case .children(let children) = reader.shallow(at: path) else { return }
            for child in children { expand(pattern, storedAt: path.child(child.key), add) }
        }
    }

    /// Adds the locations matching `pattern` inside `node`, which lies at `path`.
    func expand(_ pattern: TriggerPattern, in node: Node, at path: DataPath, _ add: (DataPath) -> Void) {
        if path.depth == pattern.depth {
            add(path)
            return
        }
        guard case .children(let children, _) = node else { return }
        switch pattern.segments[path.depth] {
        case .key(let key):
            if let child = children[key] { expand(pattern, in: child, at: path.child(key), add) }
        case .wildcard:
            for (key, child) in zip(children.keys, children.nodes) {
                expand(pattern, in: child, at: path.child(key), add)
            }
        }
    }
}
