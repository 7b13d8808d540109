/// One write a trigger derives: a value (server values such as increments allowed, `nil` node
/// deletes) for an absolute path. The same type as a multi-path update's entry, so a trigger's
/// list becomes the entries of the write it is combined with as it is (a chat message's
/// hundreds of counters are moved, not copied one by one).
public typealias DerivedUpdate = UpdateEntry

extension UpdateEntry {
    /// Sets `path` to `node` (nil deletes it).
    public static func set(_ path: DataPath, _ node: Node?) -> UpdateEntry {
        UpdateEntry(path: path, value: NewValue(node: node))
    }

    /// Adds `delta` to the number at `path` (a missing or non-number value counts as 0).
    public static func increment(_ path: DataPath, by delta: Double) -> UpdateEntry {
        UpdateEntry(
            path: path,
            value: NewValue(
                node: .leaf(.number(0), priority: nil),
                serverValues: [ServerValuePlacement(path: .root, value: .increment(delta))]
            )
        )
    }
}
