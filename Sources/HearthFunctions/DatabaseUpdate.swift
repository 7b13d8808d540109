public import HearthCore

/// One path of a callable's atomic write (`CallableDatabase.commit`): a value, a delete, or a
/// server value such as an increment or the commit's timestamp.
public struct DatabaseUpdate: Sendable {
    /// The absolute path written.
    public var path: DataPath
    enum Content: Sendable {
        case json(JSONValue)
        case value(NewValue)
    }

    var content: Content

    /// Sets `path` to `value` (`null` deletes it). `{".sv": "timestamp"}` anywhere in it is
    /// the commit's time (`JSONValue.serverTimestamp`).
    public static func set(_ path: DataPath, _ value: JSONValue) -> DatabaseUpdate {
        DatabaseUpdate(path: path, content: .json(value))
    }

    /// Deletes `path`.
    public static func delete(_ path: DataPath) -> DatabaseUpdate {
        DatabaseUpdate(path: path, content: .value(.null))
    }

    /// Adds `delta` to the number at `path` (a missing value counts as 0).
    public static func increment(_ path: DataPath, by delta: Double) -> DatabaseUpdate {
        DatabaseUpdate(
            path: path,
            content: .value(
                NewValue(
                    node: .leaf(.number(0), priority: nil),
                    serverValues: [ServerValuePlacement(path: .root, value: .increment(delta))]
                )
            )
        )
    }

    /// The value to write, parsed as database data.
    /// - Throws: `CoreError` for a key the database does not accept.
    func newValue() throws -> NewValue {
        switch content {
        case .value(let value):
            return value
        case .json(let json):
            var bytes: [UInt8] = []
            JSONRenderer.render(json, into: &bytes)
            return try TreeParser.parse(bytes, at: path)
        }
    }
}

extension JSONValue {
    /// `{".sv": "timestamp"}`: the time the write commits (the same for every path of it).
    public static let serverTimestamp = JSONValue.object([(".sv", .string("timestamp"))])
}

extension DataPath {
    /// The path of `keys`, e.g. `DataPath("chats", id)`. The keys must be valid database keys
    /// (validate client input with `KeyValidator` first).
    public init(_ keys: String...) {
        self.init(keys: keys.map { ChildKey($0) })
    }
}
