public import HearthCore

/// Read access to one snapshot of a namespace; valid only inside `NamespaceStore.read`.
public struct NamespaceReader {
    let snapshot: Snapshot
    let keys: KeySpace
    let indexes: [RegisteredIndex]
    /// Which indexed lists keep entries, and who builds them.
    var listIndexing = ListIndexing.default
    /// On a namespace's writer, for a rules check: what the writer knows of the state, which
    /// `summary(at:)` asks before reading the snapshot (`RuleReadMemory`).
    var memory: RuleReadMemory?

    /// Calls `body` for every stored entry whose key starts with `prefix`, in key order.
    func scan(_ prefix: [UInt8], _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        while cursor.hasPrefix(prefix) {
            body(cursor.keyBytes, cursor.valueBytes)
            cursor.next()
        }
    }

    /// Calls `body` for every stored entry of the subtree whose data key is `prefix`, in key
    /// order. A leaf has nothing below it but its priority, which is fetched with a point read:
    /// stepping the cursor past a hot leaf would walk every unflushed older version of it.
    func scanSubtree(_ prefix: [UInt8], _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        guard cursor.hasPrefix(prefix) else { return }
        if cursor.keyBytes.count == prefix.count {
            body(cursor.keyBytes, cursor.valueBytes)
            let priorityKey = prefix + [KeyEncoding.priorityMarker]
            if let priority = snapshot.get(priorityKey) {
                priorityKey.withUnsafeBytes { key in priority.withUnsafeBytes { body(key, $0) } }
            }
            return
        }
        while cursor.hasPrefix(prefix) {
            body(cursor.keyBytes, cursor.valueBytes)
            cursor.next()
        }
    }

    /// The node at `path`, materialised (nil = null). Costs the size of the subtree.
    public func node(at path: DataPath) -> Node? {
        let prefix = keys.dataKey(path)
        var builder = SubtreeBuilder(baseLength: prefix.count)
        scanSubtree(prefix) { builder.add(key: $0, value: $1) }
        return builder.finish()
    }

    /// Appends the JSON of the subtree at `path` (`null` when absent), compact.
    public func renderJSON(at path: DataPath, format: RenderFormat, into output: inout [UInt8]) {
        let prefix = keys.dataKey(path)
        // The renderer writes after `output`'s bytes, in its buffer: no copy of the document.
        var renderer = SubtreeRenderer(baseLength: prefix.count, format: format, after: output)
        output = []
        scanSubtree(prefix) { renderer.add(key: $0, value: $1) }
        renderer.finish()
        output = renderer.takeAll()
    }

    /// Streams the JSON of the subtree at `path` in chunks of about `chunkSize` bytes.
    public func streamJSON(
        at path: DataPath,
        format: RenderFormat,
        chunkSize: Int,
        emit: ([UInt8]) throws -> Void
    ) throws {
        let prefix = keys.dataKey(path)
        var renderer = SubtreeRenderer(baseLength: prefix.count, format: format)
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        while cursor.hasPrefix(prefix) {
            renderer.add(key: cursor.keyBytes, value: cursor.valueBytes)
            cursor.next()
            if renderer.out.count >= chunkSize {
                let chunk = renderer.takeStable()
                if !chunk.isEmpty { try emit(chunk) }
            }
        }
        renderer.finish()
        let rest = renderer.takeAll()
        if !rest.isEmpty { try emit(rest) }
    }

    /// The node's children without their subtrees (grandchildren are never read). With
    /// `startAfter`, `endAt` and `limit`, only the keys after `startAfter` up to `endAt` (key
    /// order), at most `limit`; no key past `endAt` is read.
    public func shallow(
        at path: DataPath,
        startAfter: ChildKey? = nil,
        endAt: ChildKey? = nil,
        limit: Int? = nil
    ) -> ShallowResult {
        let prefix = keys.dataKey(path)
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        guard cursor.hasPrefix(prefix) else { return .null }
        if cursor.keyBytes.count == prefix.count {
            return ValueEncoding.decode(cursor.valueBytes).map { .leaf($0) } ?? .null
        }
        var children: [(key: ChildKey, leaf: LeafValue?)] = []
        var start = prefix
        if let startAfter {
            KeyEncoding.append(startAfter, to: &start)
            start = KeyBytes.successor(of: start) ?? start
        } else {
            start.append(KeyEncoding.priorityMarker + 1)
        }
        cursor.seek(start)
        forEachChild(cursor: cursor, prefix: prefix) { key, leaf in
            if let limit, children.count >= limit { return false }
            if let endAt, ChildKey.compare(key, endAt) > 0 { return false }
            children.append((key, leaf))
            return true
        }
        return children.isEmpty && limit != 0 ? .null : .children(children)
    }

    /// From the cursor's position, calls `body` with each child of `prefix` (its key, and its
    /// value when it is a leaf), skipping each child's subtree with one seek. Stops when `body`
    /// returns false.
    func forEachChild(cursor: Cursor, prefix: [UInt8], _ body: (ChildKey, LeafValue?) -> Bool) {
        while cursor.hasPrefix(prefix) {
            let key = cursor.keyBytes
            guard key.count > prefix.count, key[prefix.count] != KeyEncoding.priorityMarker,
                let end = KeyEncoding.segmentEnd(key, from: prefix.count)
            else {
                cursor.next()
                continue
            }
            let childKey = KeyEncoding.decodeKey(key, start: prefix.count, end: end)
            let leaf = end == key.count ? ValueEncoding.decode(cursor.valueBytes) : nil
            let childPrefix = Array(UnsafeRawBufferPointer(rebasing: key[0..<end]))
            guard body(childKey, leaf) else { return }
            // Past the child's subtree: a few steps for a small one (a member's role and join
            // time), each far cheaper than a seek, then a seek past the rest of a larger one.
            var steps = 0
            repeat {
                cursor.next()
                steps += 1
            } while steps < Self.stepsBeforeSeeking && cursor.hasPrefix(childPrefix)
            if cursor.hasPrefix(childPrefix) { cursor.seek(KeyBytes.successor(of: childPrefix) ?? childPrefix) }
        }
    }

    /// Keys stepped over with `next()` before a child's subtree is skipped with a seek.
    static let stepsBeforeSeeking = 4

    /// The ETag of the location: the value hash, or `null_etag` when there is no data.
    public func etag(at path: DataPath) -> String {
        guard let node = node(at: path) else { return "null_etag" }
        return ValueHash.hash(node)
    }

    /// True when anything is stored at or below `path`.
    func exists(_ path: DataPath) -> Bool {
        let prefix = keys.dataKey(path)
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        return cursor.hasPrefix(prefix)
    }
}
