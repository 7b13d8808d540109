public import HearthCore

extension NamespaceStore {
    /// Streams the JSON of the subtree at `path` to `emit` in chunks of about 1 MiB, from one
    /// consistent snapshot.
    public func exportJSON(
        at path: DataPath,
        format: RenderFormat,
        emit: @escaping @Sendable ([UInt8]) throws -> Void
    ) async throws {
        try await read { reader in
            try reader.streamJSON(at: path, format: format, chunkSize: 1 << 20, emit: emit)
        }
    }
}
