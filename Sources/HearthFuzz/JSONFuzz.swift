import HearthCore
import HearthFuzzSupport

/// The JSON parsers of request bodies and rules files: `JSONParser` (strict, and with comments) and
/// `TreeParser` (Firebase data). What parses, rendered and parsed again, is the same value.
enum JSONFuzz {
    static let target = FuzzTarget(name: "json") { input in
        if let value = try? JSONParser.parse(input) {
            var rendered: [UInt8] = []
            JSONRenderer.render(value, into: &rendered)
            let again = try? JSONParser.parse(rendered)
            require(again == value, "JSON '\(String(decoding: rendered, as: UTF8.self))' does not parse back")
        }
        _ = try? JSONParser.parse(input, allowComments: true)

        guard let parsed = try? TreeParser.parse(input, at: .root) else { return }
        // Server values are placeholders, resolved at write time: the tree alone does not render them.
        guard parsed.serverValues.isEmpty else { return }
        for format in [RenderFormat.export, .plain] {
            let rendered = JSONRenderer.render(parsed.node, format: format)
            guard let again = try? TreeParser.parse(rendered, at: .root) else {
                require(false, "rendered tree '\(String(decoding: rendered, as: UTF8.self))' does not parse")
                return
            }
            if format == .export {
                require(
                    again.node == parsed.node,
                    "tree changed through '\(String(decoding: rendered, as: UTF8.self))'"
                )
            }
        }
        let many = try? TreeParser.parsingMany { parse in try parse(ArraySlice(input), .root) }
        require(many == parsed, "parsingMany disagrees with parse")
    }
}
