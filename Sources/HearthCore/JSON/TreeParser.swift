/// Parses JSON text straight into the tree, with Firebase's semantics: nulls dropped, empty
/// objects and arrays are null (and a parent left empty vanishes), arrays become objects keyed
/// `"0"`, `"1"`, ..., `.priority` and `.value` handled, server values recorded apart.
public enum TreeParser {
    /// Parses the JSON `bytes` written at `basePath`.
    /// - Parameter basePath: where the value will be written; it counts toward the depth limit.
    /// - Returns: the node (nil for null) and the server values found in it, at paths relative
    ///   to `basePath`.
    /// - Throws: `CoreError` for malformed JSON, invalid keys, data nested over 32 levels, or
    ///   invalid `.value`, `.priority` and `.sv` usage.
    public static func parse(_ bytes: some Collection<UInt8>, at basePath: DataPath) throws -> NewValue {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in
            try parse(buffer: UnsafeRawBufferPointer(buffer), at: basePath)
        }) {
            return result
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBytes { try parse(buffer: $0, at: basePath) }
    }

    /// Parses JSON text held in a string.
    public static func parse(_ text: String, at basePath: DataPath) throws -> NewValue {
        var text = text
        return try text.withUTF8 { try parse(buffer: UnsafeRawBufferPointer($0), at: basePath) }
    }

    static func parse(buffer: UnsafeRawBufferPointer, at basePath: DataPath) throws -> NewValue {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw CoreError.unexpectedEnd(0) }
        var reader = TreeReader(
            scanner: JSONScanner(base: base.assumingMemoryBound(to: UInt8.self), count: buffer.count),
            basePath: basePath
        )
        defer { reader.release() }
        return try reader.whole()
    }

    /// Runs `body` with a `parse` that reads many values one after another (an update's
    /// members: hundreds of small values) with one reader's memory, instead of allocating a
    /// reader's buffers for each. `parse(bytes, basePath)` answers exactly as `parse(_:at:)`.
    public static func parsingMany<T>(
        _ body: (_ parse: (ArraySlice<UInt8>, DataPath) throws -> NewValue) throws -> T
    ) rethrows -> T {
        var reader: TreeReader? = nil
        defer { reader?.release() }
        return try body { bytes, basePath in
            try bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else { throw CoreError.unexpectedEnd(0) }
                let scanner = JSONScanner(base: base.assumingMemoryBound(to: UInt8.self), count: buffer.count)
                if reader == nil {
                    reader = TreeReader(scanner: scanner, basePath: basePath)
                } else {
                    reader!.restart(scanner: scanner, basePath: basePath)
                }
                return try reader!.whole()
            }
        }
    }
}
