import HearthCore

/// What the writer needs to know to stage a write (see `NamespaceWriter`).
extension Write {
    /// Where the write happens: a set's path, an update's location (every written path lies
    /// at or below it).
    var location: DataPath {
        switch operation {
        case .set(let path, _), .update(let path, _): return path
        }
    }

    /// Every location written, absolute (a priority write by its `.priority` path).
    var writtenPaths: [DataPath] {
        switch operation {
        case .set(let path, _): return [path]
        case .update(let path, let entries): return entries.map { path.appending($0.path) }
        }
    }

    /// True when a location the write replaces leads to `pattern`'s locations: it lies at or
    /// below one, or above (see `TriggerPattern.leadsTo`). No path is built: a chat message's
    /// update has hundreds of locations, none of them near a lookup's.
    func reaches(_ pattern: TriggerPattern) -> Bool {
        switch operation {
        case .set(let path, _): return pattern.leadsTo(path)
        case .update(let base, let entries):
            return pattern.leadsTo(base) && entries.contains { pattern.leadsTo($0.path, below: base) }
        }
    }

    /// How many locations the write replaces (a set has one).
    var locationCount: Int {
        switch operation {
        case .set: return 1
        case .update(_, let entries): return entries.count
        }
    }

    /// True when a location is a `.priority` (it sets the priority of the node above it).
    var setsPriority: Bool {
        switch operation {
        case .set(let path, _): return path.isPriorityPath
        case .update(let path, let entries):
            // The last key of `path.appending(entry.path)`, without building it.
            return entries.contains { $0.path.isRoot ? path.isPriorityPath : $0.path.isPriorityPath }
        }
    }
}
