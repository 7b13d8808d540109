public import HearthCore

/// One message from the server, encoded straight to the bytes of its JSON text.
public enum ServerMessage: Sendable, Equatable {
    /// `{"t":"c","d":{"t":"h","d":{"ts":ms,"v":"5","h":host,"s":sessionID}}}`: the first message.
    case hello(timestamp: Timestamp, host: String, sessionID: String)
    /// `{"t":"c","d":{"t":"o","d":{}}}`: the answer to a client ping.
    case pong
    /// `{"t":"c","d":{"t":"s","d":reason}}`: the server shuts the connection down for good; the
    /// SDKs log the reason and do not reconnect (use only when the database is gone, never to
    /// drain: closing the socket makes clients reconnect).
    case shutdown(reason: String)
    /// `{"t":"c","d":{"t":"r","d":host}}`: the client should reconnect to `host`.
    case reset(host: String)
    /// `{"t":"d","d":{"r":N,"b":{"s":status,"d":data}}}`: the response to request N.
    case response(RequestID, status: ResponseStatus, data: ResponseData)
    /// `{"t":"d","d":{"a":"d"|"m","b":{"p":path,"d":data,"t":tag}}}`: new data for a listener.
    case dataUpdate(DataUpdate)
    /// `{"t":"d","d":{"a":"c","b":{"p":path,"q":[queryObject]}}}`: a listen was revoked (the
    /// client lost read permission); `q` is absent for the default query. The SDK reads `q` as a
    /// list of query objects whose unique keys, joined by `$`, give its query identifier.
    case listenRevoked(path: DataPath, query: Query)
    /// `{"t":"d","d":{"a":"ac","b":{"s":status,"d":reason}}}`: the connection's credential was
    /// revoked or expired; the SDK closes the connection and reconnects with a fresh token.
    case authRevoked(status: ResponseStatus, reason: String)

    /// The message as compact JSON bytes.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        append(to: &out)
        return out
    }

    /// The message split into WebSocket text frames (see `FrameSplitter`).
    public func frames(maxFrameLength: Int = FrameSplitter.maxFrameLength) -> [[UInt8]] {
        FrameSplitter.split(encoded(), maxFrameLength: maxFrameLength)
    }

    /// Appends the message's JSON to `out`.
    public func append(to out: inout [UInt8]) {
        switch self {
        case .hello(let timestamp, let host, let sessionID):
            out.append(contentsOf: Self.controlPrefix("h"))
            out.append(contentsOf: Array("{\"ts\":".utf8))
            JSONRenderer.appendNumber(Double(timestamp.millisecondsSince1970), into: &out)
            out.append(contentsOf: Array(",\"v\":\"5\",\"h\":".utf8))
            JSONRenderer.appendString(host, into: &out)
            out.append(contentsOf: Array(",\"s\":".utf8))
            JSONRenderer.appendString(sessionID, into: &out)
            out.append(contentsOf: Array("}}}".utf8))
        case .pong:
            out.append(contentsOf: Self.controlPrefix("o"))
            out.append(contentsOf: Array("{}}}".utf8))
        case .shutdown(let reason):
            out.append(contentsOf: Self.controlPrefix("s"))
            JSONRenderer.appendString(reason, into: &out)
            out.append(contentsOf: Array("}}".utf8))
        case .reset(let host):
            out.append(contentsOf: Self.controlPrefix("r"))
            JSONRenderer.appendString(host, into: &out)
            out.append(contentsOf: Array("}}".utf8))
        case .response(let id, let status, let data):
            out.append(contentsOf: Array("{\"t\":\"d\",\"d\":{\"r\":".utf8))
            out.append(contentsOf: Array(String(id.rawValue).utf8))
            out.append(contentsOf: Array(",\"b\":{\"s\":".utf8))
            JSONRenderer.appendString(status.rawValue, into: &out)
            out.append(contentsOf: Array(",\"d\":".utf8))
            data.append(to: &out)
            out.append(contentsOf: Array("}}}".utf8))
        case .dataUpdate(let update):
            switch update.change {
            case .set(let node):
                out.append(contentsOf: Self.pushPrefix("d"))
                Self.appendPath(update.path, into: &out)
                out.append(contentsOf: Array(",\"d\":".utf8))
                JSONRenderer.render(node, format: .export, into: &out)
            case .merge(let children):
                out.append(contentsOf: Self.pushPrefix("m"))
                Self.appendPath(update.path, into: &out)
                out.append(contentsOf: Array(",\"d\":{".utf8))
                for (i, child) in children.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    Self.appendPath(child.path, into: &out)
                    out.append(UInt8(ascii: ":"))
                    JSONRenderer.render(child.node, format: .export, into: &out)
                }
                out.append(UInt8(ascii: "}"))
            }
            if let tag = update.tag {
                out.append(contentsOf: Array(",\"t\":".utf8))
                out.append(contentsOf: Array(String(tag).utf8))
            }
            out.append(contentsOf: Array("}}}".utf8))
        case .listenRevoked(let path, let query):
            out.append(contentsOf: Self.pushPrefix("c"))
            Self.appendPath(path, into: &out)
            if !QueryObject.loadsAllData(query) {
                out.append(contentsOf: Array(",\"q\":[".utf8))
                JSONRenderer.render(QueryObject.object(for: query), into: &out)
                out.append(UInt8(ascii: "]"))
            }
            out.append(contentsOf: Array("}}}".utf8))
        case .authRevoked(let status, let reason):
            out.append(contentsOf: Array("{\"t\":\"d\",\"d\":{\"a\":\"ac\",\"b\":{\"s\":".utf8))
            JSONRenderer.appendString(status.rawValue, into: &out)
            out.append(contentsOf: Array(",\"d\":".utf8))
            JSONRenderer.appendString(reason, into: &out)
            out.append(contentsOf: Array("}}}".utf8))
        }
    }

    /// `{"t":"c","d":{"t":<command>,"d":`
    static func controlPrefix(_ command: String) -> [UInt8] {
        Array("{\"t\":\"c\",\"d\":{\"t\":\"\(command)\",\"d\":".utf8)
    }

    /// `{"t":"d","d":{"a":<action>,"b":{"p":`
    static func pushPrefix(_ action: String) -> [UInt8] {
        Array("{\"t\":\"d\",\"d\":{\"a\":\"\(action)\",\"b\":{\"p\":".utf8)
    }

    /// A path as Firebase pushes it: keys joined by `/`, no leading slash, `""` for the root.
    static func appendPath(_ path: DataPath, into out: inout [UInt8]) {
        JSONRenderer.appendString(path.keys.map(\.string).joined(separator: "/"), into: &out)
    }
}
