public import HearthCore

/// The paths a check read (rules: `data`, `root`, `newData`'s base). A listen's permission
/// depends on those paths only; a judged write may be staged only when nothing staged lies at,
/// above or below them. Used on one thread at a time.
public final class ReadLog {
    public private(set) var paths: [DataPath] = []
    /// Set by a check that noted every read (one that does not know the log leaves it false,
    /// and the writer then assumes it may have read anything).
    public var isComplete = false

    public init() {}

    public func note(_ path: DataPath) {
        if paths.last != path { paths.append(path) }
    }
}
