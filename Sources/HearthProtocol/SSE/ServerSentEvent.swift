public import HearthCore

/// The events of a Firebase REST streaming read (`Accept: text/event-stream`), encoded as
/// Server-Sent Events: `event: NAME\ndata: JSON\n\n`. Paths are relative to the streamed
/// location, with a leading slash (`/`, `/a/b`), as Firebase sends them.
public enum ServerSentEvent: Sendable, Equatable {
    /// `put`: the data at `path` is now `data` (JSON, `null` when removed).
    case put(path: DataPath, data: [UInt8])
    /// `patch`: the children of `path` named by the (relative) keys of `data` changed.
    case patch(path: DataPath, data: [UInt8])
    /// `keep-alive` with `data: null`.
    case keepAlive
    /// `cancel`: the stream lost permission to read; `data` is the reason (JSON string).
    case cancel(reason: String)
    /// `auth_revoked`: the credential expired or was revoked; the client reconnects with a new one.
    case authRevoked(reason: String)

    /// The wire name of the event.
    public var name: String {
        switch self {
        case .put: return "put"
        case .patch: return "patch"
        case .keepAlive: return "keep-alive"
        case .cancel: return "cancel"
        case .authRevoked: return "auth_revoked"
        }
    }

    /// The event as bytes, blank line included.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Appends the event to `out`.
    public func encode(into out: inout [UInt8]) {
        out.append(contentsOf: "event: ".utf8)
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: "\ndata: ".utf8)
        switch self {
        case .put(let path, let data), .patch(let path, let data):
            out.append(contentsOf: "{\"path\":".utf8)
            JSONRenderer.appendString(Self.pathText(path), into: &out)
            out.append(contentsOf: ",\"data\":".utf8)
            // JSON from the renderer never holds a raw line break; strip any, so one event
            // stays one `data:` line.
            out.append(contentsOf: data.lazy.filter { $0 != 0x0A && $0 != 0x0D })
            out.append(UInt8(ascii: "}"))
        case .keepAlive:
            out.append(contentsOf: "null".utf8)
        case .cancel(let reason), .authRevoked(let reason):
            JSONRenderer.appendString(reason, into: &out)
        }
        out.append(contentsOf: "\n\n".utf8)
    }

    /// `/` for the root, else `/a/b`.
    public static func pathText(_ path: DataPath) -> String {
        "/" + path.keys.map(\.string).joined(separator: "/")
    }

    /// A `put` of `node` (rendered in `format`) at `path`.
    public static func put(path: DataPath, node: Node?, format: RenderFormat) -> ServerSentEvent {
        var data: [UInt8] = []
        JSONRenderer.render(node, format: format, into: &data)
        return .put(path: path, data: data)
    }

    /// The event of a push for a stream opened at `location` (an ancestor of the push's path):
    /// the engine's shared export-format bytes when the stream asked for `format=export`, else
    /// the nodes rendered plainly (no `.priority`, array-like objects as arrays), as REST reads.
    public static func update(_ update: EncodedUpdate, at location: DataPath, format: RenderFormat) -> ServerSentEvent {
        let relative = location.relative(update.path) ?? update.path
        switch (update.change, format) {
        case (.set, .export):
            return .put(path: relative, data: Array(update.dataJSON))
        case (.merge, .export):
            return .patch(path: relative, data: Array(update.dataJSON))
        case (.set(let node), _):
            return .put(path: relative, node: node, format: format)
        case (.merge(let children), _):
            return .patch(path: relative, children: children, format: format)
        }
    }

    /// A `patch` at `path` of `children` (paths relative to it), rendered in `format`.
    public static func patch(path: DataPath, children: [UpdatedChild], format: RenderFormat) -> ServerSentEvent {
        var data: [UInt8] = [UInt8(ascii: "{")]
        for (index, child) in children.enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            JSONRenderer.appendString(child.path.keys.map(\.string).joined(separator: "/"), into: &data)
            data.append(UInt8(ascii: ":"))
            JSONRenderer.render(child.node, format: format, into: &data)
        }
        data.append(UInt8(ascii: "}"))
        return .patch(path: path, data: data)
    }
}
