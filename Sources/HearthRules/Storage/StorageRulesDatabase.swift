public import HearthCore

/// Reads the database for `database.get/exists` (the server: a snapshot of the bucket's
/// namespace taken for the decision).
public protocol StorageRulesDatabase {
    func node(at path: DataPath) -> Node?
}

/// A database tree held in memory: a test file's `database`, a test's or a fuzz target's data.
public struct StorageRulesTree: StorageRulesDatabase, Sendable {
    public let root: Node?

    public init(root: Node?) {
        self.root = root
    }

    /// The tree of a JSON value (`null`: empty).
    /// - Throws: what `TreeParser` refuses (keys the database cannot hold, ...).
    public init(json: JSONValue) throws {
        self.init(root: try TreeParser.parse(JSONText.render(json), at: .root).node)
    }

    public func node(at path: DataPath) -> Node? {
        path.isRoot ? root : root?.descendant(path)
    }
}
