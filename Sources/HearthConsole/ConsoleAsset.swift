/// One file of the web console, built into the binary: its content type and exact text. The files
/// are `Assets/` beside this one (edited as the HTML, CSS and JavaScript they are); the `EmbedConsole`
/// plugin turns them into the table `all` at build time. No files beside the binary, no build step
/// of their own: plain ES modules, nothing fetched from elsewhere.
public struct ConsoleAsset: Sendable {
    public let contentType: String
    public let text: String

    /// The file served at `path` (`/`, `/index.html`, `/console/<name>`), or nil.
    public static func at(_ path: String) -> ConsoleAsset? {
        all[path == "/" ? "/index.html" : path]
    }

    /// Every served path (`/index.html`, `/console/...`).
    public static var paths: [String] { all.keys.sorted() }
}
