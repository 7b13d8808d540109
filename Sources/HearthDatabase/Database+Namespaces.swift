extension Database {
    /// The names of the namespaces on disk and `default`, sorted (`GET /.settings/namespaces.json`).
    public func namespaceNames() throws -> [String] {
        Set(try store.namespaceNames()).union(["default"]).sorted()
    }
}
