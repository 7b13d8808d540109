public import HearthCore
public import HearthDatabase

/// What a callable sees of its namespace: reads in one snapshot and atomic multi-path writes,
/// both as the server itself (rules do not apply; the callable decides who may do what). A
/// write goes through the namespace's serial writer like any other: its triggers run, it is
/// durable before it returns, and listeners of every way in get it as one commit.
public struct CallableDatabase: Sendable {
    /// The namespace (`?ns=`, `default` when absent).
    public let namespace: String
    /// The namespace's engine, for anything beyond these helpers (a write judged by the
    /// caller's rules: `engine.write(_:as:)`).
    public let engine: NamespaceEngine

    public init(namespace: String, engine: NamespaceEngine) {
        self.namespace = namespace
        self.engine = engine
    }

    /// Milliseconds since 1970 by the server's clock (what a server timestamp resolves to), for
    /// a time a callable must compute with before it writes it.
    public func now() -> Double {
        engine.serverTime()
    }

    /// Runs `body` on one consistent snapshot of the namespace.
    /// - Throws: what `body` throws; `INTERNAL` when the store fails.
    public func read<T: Sendable>(
        _ body: @escaping @Sendable (CallableSnapshot) throws(CallableError) -> T
    ) async throws(CallableError) -> T {
        do {
            return try await engine.readAsServer { snapshot in try body(snapshot) }
        } catch let error as CallableError {
            throw error
        } catch {
            throw .internal(error)
        }
    }

    /// The value at `path` (nil: none).
    public func node(at path: DataPath) async throws(CallableError) -> Node? {
        try await read { $0.node(at: path) }
    }

    /// Commits `updates` as one atomic multi-path write; their paths must not contain one
    /// another.
    /// - Parameters:
    ///   - precondition: when given, judged on the namespace's writer against the state the
    ///     write applies to, with nothing committing in between; false writes nothing.
    ///   - jobs: queued in the same commit (`Write.jobs`): work outside the tree, such as a
    ///     file to delete (`FileDeletion`), that exists exactly when the updates committed.
    /// - Returns: false when `precondition` did not hold (nothing written), else true.
    /// - Throws: `INTERNAL` when the store refuses or fails (paths that contain one another,
    ///   invalid keys: a bug of the callable, which validates client input first).
    @discardableResult
    public func commit(
        _ updates: [DatabaseUpdate],
        when precondition: (@Sendable (CallableSnapshot) -> Bool)? = nil,
        jobs: [ServerJob] = []
    ) async throws(CallableError) -> Bool {
        guard !updates.isEmpty else { return true }
        do {
            let entries = try updates.map { try UpdateEntry(path: $0.path, value: $0.newValue()) }
            var write = Write(.update(.root, entries))
            write.jobs = jobs
            return try await engine.writeAsServer(write, precondition: precondition) != nil
        } catch {
            throw .internal(error)
        }
    }
}

/// What a callable reads: the namespace at one point (a `read`, or a `commit`'s precondition,
/// where every read is noted for the writer), as the server reads it.
public typealias CallableSnapshot = NamespaceSnapshot

extension NamespaceSnapshot {
    /// Whether anything is stored at `path`.
    public func exists(_ path: DataPath) -> Bool {
        node(at: path) != nil
    }

    /// The children of `path`, in key order, at most `limit` of them (a shallow read).
    public func childKeys(of path: DataPath, limit: Int? = nil) -> [ChildKey] {
        guard case .children(let children) = shallow(at: path, limit: limit) else { return [] }
        return children.map(\.key)
    }
}
