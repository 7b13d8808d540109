import HearthCore

/// What the writer needs to know to stage a write (see `NamespaceWriter`).
extension Write {
    /// Every location written, absolute (a priority write by its `.priority` path).
    var writtenPaths: [DataPath] {
        switch operation {
        case .set(let path, _): return [path]
        case .update(let path, let entries): return entries.map { path.appending($0.path) }
        }
    }

    /// True when a location is a `.priority` (it sets the priority of the node above it).
    var setsPriority: Bool {
        writtenPaths.contains(where: \.isPriorityPath)
    }
}
