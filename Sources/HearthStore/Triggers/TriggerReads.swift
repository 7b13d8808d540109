import HearthCore

/// What a trigger run read from the state its write was planned against, so the writer can
/// tell whether a write staged earlier in the round could have changed it (the write then waits
/// for the flush and runs again). Used on the writer only.
final class TriggerReads {
    /// A last-child read: the last child of `parent` in key order was `found` (nil: none).
    struct LastChild {
        let parent: DataPath
        let found: ChildKey?
    }

    /// Locations read whole: a staged write at, above or below one could change what was read.
    private(set) var paths: [DataPath] = []
    /// Last-child reads: only a staged write at or above the parent, or inside the child found
    /// or a later one, could change them (see `TouchedKeys.touches(childrenOf:from:)`). A chat's
    /// newest message stays the newest while earlier messages of the chat are staged.
    private(set) var lastChildren: [LastChild] = []

    func note(_ path: DataPath) {
        if paths.last != path { paths.append(path) }
    }

    func noteLastChild(of parent: DataPath, found: ChildKey?) {
        lastChildren.append(LastChild(parent: parent, found: found))
    }
}
