public import HearthCore

/// A data push (`a:"d"` or `a:"m"`) rendered once, to be shared by every listener that receives
/// it: the fan-out engine builds one per (path, query) and commit, and each connection sends
/// the same bytes (untagged listens) or the same bytes with `"t":tag` spliced in (tagged ones).
///
/// The pieces are exposed for other transports: Server-Sent Events send `event: put` (a set) or
/// `event: patch` (a merge) with `{"path":…,"data":…}` built from `path` and `dataJSON`.
public final class EncodedUpdate: Sendable {
    /// Where the change applies (the listen's path or below).
    public let path: DataPath
    /// What changed, as nodes (for encodings other than the protocol's export format).
    public let change: DataUpdate.Change
    /// The whole untagged message: `{"t":"d","d":{"a":"d"|"m","b":{"p":path,"d":data}}}`.
    public let message: [UInt8]
    private let pathRange: Range<Int>
    private let dataRange: Range<Int>

    /// Renders the push once. Data is in the export format (`.priority` wherever a node has one,
    /// never arrays); a merge's keys are the children's paths relative to `path`.
    public init(path: DataPath, change: DataUpdate.Change) {
        self.path = path
        self.change = change
        var out: [UInt8] = []
        out.reserveCapacity(96)
        out.append(contentsOf: ServerMessage.pushPrefix(change.isMerge ? "m" : "d"))
        let pathStart = out.count
        ServerMessage.appendPath(path, into: &out)
        pathRange = pathStart..<out.count
        out.append(contentsOf: Array(",\"d\":".utf8))
        let dataStart = out.count
        switch change {
        case .set(let node):
            JSONRenderer.render(node, format: .export, into: &out)
        case .merge(let children):
            out.append(UInt8(ascii: "{"))
            for (i, child) in children.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                ServerMessage.appendPath(child.path, into: &out)
                out.append(UInt8(ascii: ":"))
                JSONRenderer.render(child.node, format: .export, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        dataRange = dataStart..<out.count
        out.append(contentsOf: Array("}}}".utf8))
        message = out
    }

    /// True for a merge (`m`, SSE `patch`), false for a set (`d`, SSE `put`).
    public var isMerge: Bool { change.isMerge }

    /// The path as a JSON string, without a leading slash (`"users/ada"`, `""` for the root).
    public var pathJSON: ArraySlice<UInt8> { message[pathRange] }

    /// The data as JSON in the export format (for a merge, the object of relative paths).
    public var dataJSON: ArraySlice<UInt8> { message[dataRange] }

    /// The message for a listen with `tag` (`,"t":tag` before the closing braces), or the shared
    /// untagged bytes.
    public func message(tag: Int64?) -> [UInt8] {
        guard let tag else { return message }
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 24)
        out.append(contentsOf: message[0..<(message.count - 3)])
        out.append(contentsOf: Array(",\"t\":".utf8))
        out.append(contentsOf: Array(String(tag).utf8))
        out.append(contentsOf: Array("}}}".utf8))
        return out
    }

    /// The SSE event name: `put` for a set, `patch` for a merge.
    public var eventName: String { isMerge ? "patch" : "put" }

    /// The SSE `data:` payload for a stream opened at `listenPath` (an ancestor of `path`, or
    /// `path` itself): `{"path":"/relative/path","data":…}`, the path relative to the stream's
    /// location with a leading slash as Firebase sends it, the data in the export format.
    /// With `format: .plain` the data is rendered again from `change` (no priorities, arrays
    /// for array-like objects, as REST reads answer); `.export` reuses the shared bytes.
    public func eventStreamData(relativeTo listenPath: DataPath, format: RenderFormat = .export) -> [UInt8] {
        let relative = listenPath.relative(path) ?? path
        var out: [UInt8] = []
        out.reserveCapacity(dataRange.count + 32)
        out.append(contentsOf: Array("{\"path\":".utf8))
        JSONRenderer.appendString("/" + relative.keys.map(\.string).joined(separator: "/"), into: &out)
        out.append(contentsOf: Array(",\"data\":".utf8))
        switch (format, change) {
        case (.export, _):
            out.append(contentsOf: dataJSON)
        case (.plain, .set(let node)):
            JSONRenderer.render(node, format: .plain, into: &out)
        case (.plain, .merge(let children)):
            out.append(UInt8(ascii: "{"))
            for (i, child) in children.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                ServerMessage.appendPath(child.path, into: &out)
                out.append(UInt8(ascii: ":"))
                JSONRenderer.render(child.node, format: .plain, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension DataUpdate.Change {
    /// True for `m`.
    public var isMerge: Bool {
        if case .merge = self { return true }
        return false
    }
}
