import HTTPTypes
import Hummingbird

/// The web console, built into the binary (no files beside it, no build step): `GET /` is the
/// page, `/console/<module>.js` its modules (`ConsoleModules`) and `/console/style.css`. It speaks only
/// the server's public REST and SSE APIs with the admin secret the user types.
enum ConsoleAssets {
    /// Scripts and styles only from this server, nothing inline, no framing.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: blob:; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    /// The asset at `path` for a GET or HEAD, or nil when `path` is not one.
    static func response(for path: String, method: HTTPRequest.Method) -> Response? {
        guard method == .get || method == .head else { return nil }
        let asset: (type: String, text: String)
        switch path {
        case "/", "/index.html": asset = ("text/html; charset=utf-8", ConsolePage.html)
        case "/console/style.css": asset = ("text/css; charset=utf-8", ConsoleStyle.css)
        default:
            guard path.hasPrefix("/console/"), path.hasSuffix(".js"),
                let module = ConsoleModules.all[String(path.dropFirst("/console/".count).dropLast(".js".count))]
            else { return nil }
            asset = ("text/javascript; charset=utf-8", module)
        }
        let headers: HTTPFields = [
            .contentType: asset.type,
            .cacheControl: "no-cache",
            .contentSecurityPolicy: contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: asset.text)))
    }
}
