/// One write a trigger derives: a value (server values such as increments allowed, `nil`
/// node deletes) for an absolute path.
public struct DerivedUpdate: Sendable, Hashable {
    public var path: DataPath
    public var value: NewValue

    public init(path: DataPath, value: NewValue) {
        self.path = path
        self.value = value
    }

    /// Sets `path` to `node` (nil deletes it).
    public static func set(_ path: DataPath, _ node: Node?) -> DerivedUpdate {
        DerivedUpdate(path: path, value: NewValue(node: node))
    }

    /// Adds `delta` to the number at `path` (a missing or non-number value counts as 0).
    public static func increment(_ path: DataPath, by delta: Double) -> DerivedUpdate {
        DerivedUpdate(
            path: path,
            value: NewValue(
                node: .leaf(.number(0), priority: nil),
                serverValues: [ServerValuePlacement(path: .root, value: .increment(delta))]
            )
        )
    }
}
