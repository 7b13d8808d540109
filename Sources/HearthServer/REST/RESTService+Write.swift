import HearthCore
import HearthDatabase
import Hummingbird

extension RESTService {
    /// `PUT`, `POST`, `PATCH`, `DELETE`.
    func write(
        _ call: Call,
        path: DataPath,
        isPriority: Bool,
        body: [UInt8],
        pushID presetPushID: String? = nil,
        in engine: NamespaceEngine
    ) async throws -> Response {
        let options = call.options
        if isPriority {
            return try await writePriority(
                call,
                path: path,
                body: call.method == .delete ? Array("null".utf8) : body,
                in: engine
            )
        }
        let ifMatch = call.method == .post ? nil : call.ifMatch
        let writeOp: Write.Operation
        var pushID: String?
        switch call.method {
        case .put:
            writeOp = .set(path, try CoreBridge.parseValue(body, at: path))
        case .post:
            let id = presetPushID ?? CoreBridge.nextPushID()
            pushID = id
            let child = path.child(ChildKey(id))
            writeOp = .set(child, try CoreBridge.parseValue(body, at: child))
        case .patch:
            writeOp = .update(path, try CoreBridge.parseUpdate(body, at: path))
        default:
            writeOp = .set(path, .null)
        }

        let target = pushID.map { path.child(ChildKey($0)) } ?? path
        let result = try await engine.write(
            Write(writeOp, ifMatch: ifMatch),
            as: call.caller,
            returningETagAt: call.wantsETag || ifMatch != nil ? target : nil
        )
        switch result {
        case .conditionFailed(let current, let etag):
            var bytes: [UInt8] = []
            CoreBridge.render(current, format: .plain, into: &bytes)
            return ResponseBuilder.preconditionFailed(current: bytes, etag: etag)
        case .committed(let values, let etag):
            let bytes = Self.committedAnswer(of: writeOp, pushID: pushID, values: values, format: options.format)
            return ResponseBuilder.json(bytes, print: options.print, etag: etag)
        }
    }

    /// What a committed write is answered with: a `POST`'s new name (`pushID`), a `PATCH`'s
    /// patch keyed as sent, else the value written; server values resolved (`values`).
    static func committedAnswer(
        of operation: Write.Operation,
        pushID: String?,
        values: [Node?],
        format: RenderFormat
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        if let pushID {
            bytes.append(contentsOf: "{\"name\":\(JSONText.quoted(pushID))}".utf8)
        } else if case .update(_, let entries) = operation {
            renderPatch(entries: entries, values: values, format: format, into: &bytes)
        } else {
            CoreBridge.render(values.first ?? nil, format: format, into: &bytes)
        }
        return bytes
    }

    /// The PATCH answer: the patch itself, keyed as sent, with server values resolved.
    static func renderPatch(entries: [UpdateEntry], values: [Node?], format: RenderFormat, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, entry) in entries.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendQuotedPath(entry.path, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            let value = index < values.count ? values[index] : entry.value.node
            CoreBridge.render(value, format: format, into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `k1/k2` as `JSONText.quoted` spells it; keys with nothing to escape are copied as they are
    /// (through their UTF-8 buffers: a PATCH answer echoes hundreds of paths).
    static func appendQuotedPath(_ path: DataPath, into bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(0x22)
        for (index, key) in path.keys.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "/")) }
            var text = key.string
            let plain = text.withUTF8 { utf8 -> Bool in
                for byte in utf8 where byte < 0x20 || byte == 0x7F || byte == 0x22 || byte == 0x5C { return false }
                bytes.append(contentsOf: utf8)
                return true
            }
            guard plain else {
                bytes.removeSubrange(start...)
                bytes.append(contentsOf: JSONText.quoted(path.keys.map(\.string).joined(separator: "/")).utf8)
                return
            }
        }
        bytes.append(0x22)
    }

    /// `PUT /a/.priority.json`: replaces the node's priority, keeping its value, in one write
    /// (the store reads a path ending in `.priority` as the parent's priority). Firebase keeps
    /// no priority on an empty location, so that write changes nothing.
    func writePriority(
        _ call: Call,
        path: DataPath,
        body: [UInt8],
        in engine: NamespaceEngine
    ) async throws -> Response {
        let text = String(decoding: body, as: UTF8.self)
        let priority: Node?
        switch JSONScalar.parse(text) {
        case .null?: priority = nil
        case .number(let n)?: priority = .leaf(.number(n), priority: nil)
        case .string(let s)?: priority = .leaf(.string(s), priority: nil)
        default:
            throw RESTError.badRequest("Invalid priority '\(text.prefix(64))': use a number, a string or null.")
        }
        let write = Write(.set(path.child(ChildKey(".priority")), NewValue(node: priority)), ifMatch: call.ifMatch)
        switch try await engine.write(write, as: call.caller, returningETagAt: nil) {
        case .committed:
            var answer: [UInt8] = []
            CoreBridge.render(priority, format: .plain, into: &answer)
            return ResponseBuilder.json(answer, print: call.options.print)
        case .conditionFailed(let current, let currentETag):
            var bytes: [UInt8] = []
            CoreBridge.render(current, format: .plain, into: &bytes)
            return ResponseBuilder.preconditionFailed(current: bytes, etag: currentETag)
        }
    }
}
