/// A server value placeholder, `{".sv": "timestamp"}` or `{".sv": {"increment": n}}`, resolved
/// by the namespace's writer at commit time.
public enum ServerValue: Hashable, Sendable {
    case timestamp
    case increment(Double)
}

/// A value to write: the parsed node (nil is null, a delete) and the server values found in it,
/// at paths relative to the written location, still to be resolved and placed into `node`.
public struct NewValue: Hashable, Sendable {
    public var node: Node?
    public var serverValues: [ServerValuePlacement]

    public init(node: Node?, serverValues: [ServerValuePlacement] = []) {
        self.node = node
        self.serverValues = serverValues
    }

    public static let null = NewValue(node: nil)
}

/// Where a server value goes, relative to the written location. `priority` is true when it is
/// the `.priority` of the node at `path` rather than its value.
public struct ServerValuePlacement: Hashable, Sendable {
    public var path: DataPath
    public var value: ServerValue
    public var isPriority: Bool

    public init(path: DataPath, value: ServerValue, isPriority: Bool = false) {
        self.path = path
        self.value = value
        self.isPriority = isPriority
    }
}
