import HTTPTypes
import HearthConsole
import Hummingbird

/// The web console, built into the binary (no files beside it): `GET /` is the page,
/// `/console/<file>` its modules, stylesheet and icon, each the text of a file of
/// `Sources/HearthConsole/Assets` embedded at build time (`ConsoleAsset`). It speaks only the
/// server's public REST and SSE APIs with the admin secret the user types.
enum ConsoleAssets {
    /// Scripts and styles only from this server, nothing inline, no framing.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: blob:; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    /// The asset at `path` for a GET or HEAD, or nil when `path` is not one.
    static func response(for path: String, method: HTTPRequest.Method) -> Response? {
        guard method == .get || method == .head, let asset = ConsoleAsset.at(path) else { return nil }
        let headers: HTTPFields = [
            .contentType: asset.contentType,
            .cacheControl: "no-cache",
            .contentSecurityPolicy: contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: asset.text)))
    }
}
