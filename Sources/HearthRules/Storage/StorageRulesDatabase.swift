public import HearthCore

/// Reads the database for `database.get/exists` (the server: a snapshot of the bucket's
/// namespace taken for the decision).
public protocol StorageRulesDatabase {
    func node(at path: DataPath) -> Node?
}
