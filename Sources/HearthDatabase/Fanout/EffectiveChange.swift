import HearthCore
import HearthProtocol

/// A committed set or update as listeners see it: priority writes already replaced by their
/// owner's new value (read from the store), so every entry is a plain overwrite.
struct EffectiveChange: Sendable {
    enum Kind: Sendable {
        /// The node at `location` is now this value.
        case set(Node?)
        /// Each relative path under `location` is now its value; no path contains another.
        case update([(path: DataPath, node: Node?)])
    }

    var location: DataPath
    var kind: Kind
}

/// The one push a default listen gets for a change.
struct DefaultListenPush {
    var path: DataPath
    var change: DataUpdate.Change
    /// True when every listen that gets a push gets this same one (the change lies at or below
    /// the listen), so one `EncodedUpdate` can serve all of them.
    var isShared: Bool

    /// The push for a default listen at `listen`, or nil when its data did not change. A set at
    /// or below the listen is a `d` at the set's path; a set above it, a `d` at the listen with
    /// its part of the value. An update based at or below the listen is one `m` at its base; an
    /// update above it is a `d` at the listen when an entry covers the listen, else one `m` at
    /// the listen with the entries below it, relative to it.
    static func make(for listen: DataPath, _ change: EffectiveChange) -> DefaultListenPush? {
        let location = change.location
        switch change.kind {
        case .set(let node):
            if listen.contains(location) {
                return DefaultListenPush(path: location, change: .set(node), isShared: true)
            }
            if let relative = location.relative(listen) {
                return DefaultListenPush(path: listen, change: .set(node?.descendant(relative)), isShared: false)
            }
            return nil
        case .update(let entries):
            if listen.contains(location) {
                if entries.isEmpty { return nil }
                let children = entries.map { UpdatedChild(path: $0.path, node: $0.node) }
                return DefaultListenPush(path: location, change: .merge(children), isShared: true)
            }
            guard let relative = location.relative(listen) else { return nil }
            var children: [UpdatedChild] = []
            for entry in entries {
                if let inside = entry.path.relative(relative) {
                    // The entry covers the listen (no other entry can touch it: paths are disjoint).
                    return DefaultListenPush(
                        path: listen,
                        change: .set(entry.node?.descendant(inside)),
                        isShared: false
                    )
                }
                if let below = relative.relative(entry.path) {
                    children.append(UpdatedChild(path: below, node: entry.node))
                }
            }
            return children.isEmpty ? nil : DefaultListenPush(path: listen, change: .merge(children), isShared: false)
        }
    }
}
