import Crypto
import Foundation

/// The value hash the Firebase SDKs compare in transactions (`LeafNode.hash()` and
/// `ChildrenNode.hash()`): SHA-1 of a text form, base64 encoded; `""` for null.
public enum ValueHash {
    /// The hash of `node` exactly as the official JavaScript SDK computes it.
    public static func hash(_ node: Node?) -> String {
        guard let node else { return "" }
        return hash(node)
    }

    static func hash(_ node: Node) -> String {
        var text = ""
        if let priority = node.priority {
            text += "priority:" + priorityText(priority) + ":"
        }
        switch node {
        case .leaf(let value, _):
            switch value {
            case .bool(let b): text += "boolean:" + (b ? "true" : "false")
            case .number(let n): text += "number:" + IEEE754Hex.string(n)
            case .string(let s): text += "string:" + s
            }
        case .children(let children, _):
            for (key, child) in priorityOrdered(children) {
                let childHash = hash(child)
                if !childHash.isEmpty {
                    text += ":" + key.string + ":" + childHash
                }
            }
            if text.isEmpty { return "" }
        }
        return sha1Base64(text)
    }

    /// `priorityHashText`: `number:<hex>` or `string:<text>`.
    static func priorityText(_ priority: Priority) -> String {
        switch priority {
        case .number(let n): return "number:" + IEEE754Hex.string(n)
        case .string(let s): return "string:" + s
        }
    }

    /// Children in the SDK's PRIORITY_INDEX order: priority, then key.
    static func priorityOrdered(_ children: Children) -> [(key: ChildKey, node: Node)] {
        let all = Array(children)
        if !all.contains(where: { $0.node.priority != nil }) { return all }
        return all.sorted { a, b in
            let c = Priority.compare(a.node.priority, b.node.priority)
            return c != 0 ? c < 0 : ChildKey.compare(a.key, b.key) < 0
        }
    }

    static func sha1Base64(_ text: String) -> String {
        let digest = Insecure.SHA1.hash(data: Array(text.utf8))
        return Data(digest).base64EncodedString()
    }
}
