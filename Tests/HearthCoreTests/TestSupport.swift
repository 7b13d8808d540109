@testable import HearthCore

/// Parses JSON into a node at the root (test input is always valid).
func tree(_ json: String) -> Node? {
    try! TreeParser.parse(json, at: .root).node
}

/// Renders a node as compact JSON text.
func text(_ node: Node?, _ format: RenderFormat = .plain) -> String {
    JSONRenderer.renderString(node, format: format)
}

/// The message of the `CoreError` thrown by `body`, or nil.
func coreErrorMessage(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as CoreError {
        return error.message
    } catch {
        return "unexpected \(error)"
    }
}

func key(_ s: String) -> ChildKey { ChildKey(s) }
