/// A path in the tree: a list of validated keys. The root is the empty path.
public struct DataPath: Hashable, Sendable, CustomStringConvertible, Comparable {
    public private(set) var keys: [ChildKey]

    public static let root = DataPath(keys: [])

    public init(keys: [ChildKey]) {
        self.keys = keys
    }

    public var isRoot: Bool { keys.isEmpty }

    /// Paths are equal when their keys are. Inlinable: two paths that share one array of keys
    /// (a trigger's cached paths against a kept copy) compare without reading or retaining it.
    @inlinable public static func == (lhs: DataPath, rhs: DataPath) -> Bool {
        lhs.keys == rhs.keys
    }
    public var depth: Int { keys.count }
    public var last: ChildKey? { keys.last }

    /// True when the last key is `.priority` (a write of the parent's priority).
    @inlinable public var isPriorityPath: Bool { keys.last?.string == ".priority" }

    public var parent: DataPath? {
        keys.isEmpty ? nil : DataPath(keys: Array(keys.dropLast()))
    }

    public func child(_ key: ChildKey) -> DataPath {
        DataPath(keys: keys + [key])
    }

    public func appending(_ other: DataPath) -> DataPath {
        DataPath(keys: keys + other.keys)
    }

    /// True when `self` is `other` or one of its ancestors.
    public func contains(_ other: DataPath) -> Bool {
        guard other.keys.count >= keys.count else { return false }
        for i in 0..<keys.count where keys[i] != other.keys[i] { return false }
        return true
    }

    /// The path of `other` relative to `self`, when `self` contains it.
    public func relative(_ other: DataPath) -> DataPath? {
        contains(other) ? DataPath(keys: Array(other.keys[keys.count...])) : nil
    }

    /// `/a/b`, or `/` for the root.
    public var description: String {
        keys.isEmpty ? "/" : "/" + keys.map(\.string).joined(separator: "/")
    }

    /// Orders paths key by key (an ancestor before its descendants).
    public static func < (lhs: DataPath, rhs: DataPath) -> Bool {
        for (a, b) in zip(lhs.keys, rhs.keys) {
            let c = ChildKey.compare(a, b)
            if c != 0 { return c < 0 }
        }
        return lhs.keys.count < rhs.keys.count
    }
}
