/// Writes the tree as compact JSON, the way Firebase answers reads (`.plain`) and exports
/// (`.export`).
public enum JSONRenderer {
    /// Appends `node` as compact JSON (`null` for nil).
    public static func render(_ node: Node?, format: RenderFormat, into out: inout [UInt8]) {
        guard let node else {
            appendNull(into: &out)
            return
        }
        switch format {
        case .plain: renderPlain(node, into: &out)
        case .export: renderExport(node, into: &out)
        }
    }

    /// `node` as compact JSON bytes.
    public static func render(_ node: Node?, format: RenderFormat) -> [UInt8] {
        var out: [UInt8] = []
        render(node, format: format, into: &out)
        return out
    }

    /// `node` as a compact JSON string.
    public static func renderString(_ node: Node?, format: RenderFormat) -> String {
        String(decoding: render(node, format: format), as: UTF8.self)
    }

    /// Appends `null`.
    @inline(__always)
    public static func appendNull(into out: inout [UInt8]) {
        out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }

    /// Appends a leaf's value (no priority).
    @inline(__always)
    public static func appendLeaf(_ value: LeafValue, into out: inout [UInt8]) {
        switch value {
        case .string(let s): appendString(s, into: &out)
        case .number(let n): appendNumber(n, into: &out)
        case .bool(let b):
            if b {
                out.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
            } else {
                out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
            }
        }
    }

    /// Appends a priority value.
    public static func appendPriority(_ priority: Priority, into out: inout [UInt8]) {
        switch priority {
        case .number(let n): appendNumber(n, into: &out)
        case .string(let s): appendString(s, into: &out)
        }
    }

    /// True when Firebase would show children with these keys as a JSON array: every key is
    /// `0|[1-9][0-9]*` and the largest is below twice the number of keys.
    public static func isArrayLike(_ children: Children) -> Bool {
        var maxKey = -1
        for key in children.keys {
            guard let value = key.intValue, value >= 0 else { return false }
            let utf8 = key.string.utf8
            if utf8.first == UInt8(ascii: "0") && utf8.count > 1 { return false }
            if Int(value) > maxKey { maxKey = Int(value) }
        }
        return maxKey < 2 * children.count
    }

    static func renderPlain(_ node: Node, into out: inout [UInt8]) {
        switch node {
        case .leaf(let value, _):
            appendLeaf(value, into: &out)
        case .children(let children, _):
            if isArrayLike(children) {
                out.append(UInt8(ascii: "["))
                var next = 0
                for (key, child) in children {
                    let index = Int(key.intValue!)
                    while next < index {
                        if next > 0 { out.append(UInt8(ascii: ",")) }
                        appendNull(into: &out)
                        next += 1
                    }
                    if next > 0 { out.append(UInt8(ascii: ",")) }
                    renderPlain(child, into: &out)
                    next += 1
                }
                out.append(UInt8(ascii: "]"))
            } else {
                out.append(UInt8(ascii: "{"))
                var first = true
                for (key, child) in children {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    appendString(key.string, into: &out)
                    out.append(UInt8(ascii: ":"))
                    renderPlain(child, into: &out)
                }
                out.append(UInt8(ascii: "}"))
            }
        }
    }

    static let priorityKey: [UInt8] = Array("\".priority\":".utf8)
    static let valueKey: [UInt8] = Array("{\".value\":".utf8)

    static func renderExport(_ node: Node, into out: inout [UInt8]) {
        switch node {
        case .leaf(let value, let priority):
            if let priority {
                out.append(contentsOf: valueKey)
                appendLeaf(value, into: &out)
                out.append(UInt8(ascii: ","))
                out.append(contentsOf: priorityKey)
                appendPriority(priority, into: &out)
                out.append(UInt8(ascii: "}"))
            } else {
                appendLeaf(value, into: &out)
            }
        case .children(let children, let priority):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, child) in children {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                appendString(key.string, into: &out)
                out.append(UInt8(ascii: ":"))
                renderExport(child, into: &out)
            }
            if let priority {
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: priorityKey)
                appendPriority(priority, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a generic JSON value as compact JSON (members in their order).
    public static func render(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: appendNull(into: &out)
        case .bool(let b): appendLeaf(.bool(b), into: &out)
        case .number(let n): appendNumber(n, into: &out)
        case .string(let s): appendString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                render(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                appendString(member.0, into: &out)
                out.append(UInt8(ascii: ":"))
                render(member.1, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
