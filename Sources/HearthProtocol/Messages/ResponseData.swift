public import HearthCore

/// The data `d` of a response.
public enum ResponseData: Sendable, Equatable {
    /// `""`: what Firebase answers to writes, unlistens and stats.
    case empty
    /// `{}`: what Firebase answers to a successful listen without warnings.
    case emptyObject
    /// A message string, as error responses carry (`"Permission denied"`).
    case message(String)
    /// Any JSON value (auth results, listen warnings `{"w": ["no_index"]}`).
    case json(JSONValue)
    /// Database data, rendered in the export format (with `.priority`); nil is `null`.
    case tree(Node?)

    func append(to out: inout [UInt8]) {
        switch self {
        case .empty: out.append(contentsOf: [0x22, 0x22])
        case .emptyObject: out.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        case .message(let text): JSONRenderer.appendString(text, into: &out)
        case .json(let value): JSONRenderer.render(value, into: &out)
        case .tree(let node): JSONRenderer.render(node, format: .export, into: &out)
        }
    }
}
