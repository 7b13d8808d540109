import HearthCore
import HearthFuzzSupport

/// Path parsing (`DataPath.parse`, `parseWritePath`): a path that parses renders back to the same path,
/// and a refusal is a `CoreError`.
enum PathFuzz {
    static let target = FuzzTarget(name: "path") { input in
        let text = input.text
        do {
            let path = try DataPath.parse(text)
            let again = try? DataPath.parse(path.description)
            require(again == path, "path '\(path)' does not parse back")
            require(path.depth <= 32, "path '\(path)' is deeper than 32 keys")
            if let keys = try? DataPath(validating: path.keys.map(\.string)) {
                require(keys == path, "path '\(path)' validates to another path")
            } else {
                require(false, "the keys of path '\(path)' do not validate")
            }
        } catch {
            require(error is CoreError, "refusal is not a CoreError: \(error)")
        }
        if let write = try? DataPath.parseWritePath(text) {
            let rendered = write.path.description + (write.isPriority ? "/.priority" : "")
            let again = try? DataPath.parseWritePath(rendered)
            require(again?.path == write.path && again?.isPriority == write.isPriority, "write path '\(rendered)'")
        }
    }
}
