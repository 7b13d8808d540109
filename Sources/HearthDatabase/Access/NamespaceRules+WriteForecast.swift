public import HearthCore
import HearthRules
public import HearthStore

extension NamespaceRules {
    /// What the rules say of a write before the data written is known.
    public enum WriteForecast: Sendable, Equatable {
        /// No `.write` rule from the root down to the path is true, and none of them read
        /// `newData`: the write is denied whatever it writes.
        case denied
        /// The rules may allow the write (or decide on the data written): read it and judge it.
        case undecided
        /// The `.write` rules read the current data (`data`, `root`) and none granted without it:
        /// ask again with a reader.
        case needsCurrentData
    }

    /// Whether `caller`'s write of anything at `path` (a set: the `.write` cascade from the root
    /// to `path`, as `canWrite` runs it) is denied whatever the data written, so that the
    /// server can refuse it before reading a body. The cascade runs with `newData` watched: a
    /// denial that never read it holds for any data, because evaluation depends only on what
    /// it reads. Without `reader`, `data` and `root` are watched too, and a cascade that read
    /// them is `needsCurrentData`. Not for updates: their written paths come from the body.
    public func forecastWrite(_ caller: Caller, at path: DataPath, reader: NamespaceReader? = nil) -> WriteForecast {
        if caller.bypassesRules { return .undecided }
        guard let program = current else { return .denied }
        let newData = WatchedSource()
        let allowed: Bool
        let currentDataRead: Bool
        if let reader {
            allowed =
                program.canWrite(
                    path: path,
                    auth: caller.auth,
                    root: StoreRuleSource(reader),
                    newRoot: newData,
                    now: now(),
                    changedPaths: [path]
                ).allowed
            currentDataRead = false
        } else {
            let currentData = WatchedSource()
            allowed =
                program.canWrite(
                    path: path,
                    auth: caller.auth,
                    root: currentData,
                    newRoot: newData,
                    now: now(),
                    changedPaths: [path]
                ).allowed
            currentDataRead = currentData.wasRead
        }
        // An allowed cascade, or one decided by `.validate` (which reads the new data), is the
        // write's to judge with its data.
        if allowed || newData.wasRead { return .undecided }
        return currentDataRead ? .needsCurrentData : .denied
    }
}

/// An empty database that notes whether the rules read it.
private final class WatchedSource: RuleDataSource {
    private(set) var wasRead = false

    func node(at path: DataPath) -> Node? {
        wasRead = true
        return nil
    }

    func summary(at path: DataPath) -> RuleNodeSummary {
        wasRead = true
        return .absent
    }

    func priority(at path: DataPath) -> Priority? {
        wasRead = true
        return nil
    }
}
