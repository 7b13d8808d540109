import Foundation

/// Checks the URLs FCM's bearer tokens travel to (`--push-fcm-endpoint`, the key's `token_uri`):
/// `https`, or plain `http` only to this machine (a local fake or proxy), so no credential crosses
/// a network in clear.
enum PushEndpoint {
    static func check(_ text: String, what: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host,
            !host.isEmpty
        else {
            throw PushError(.invalidEndpoint, "The \(what) '\(text)' is not a URL with a scheme and a host.")
        }
        switch scheme {
        case "https":
            return url
        case "http" where ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()):
            return url
        case "http":
            throw PushError(
                .invalidEndpoint,
                "The \(what) '\(text)' is plain http to another machine: use https (http is accepted "
                    + "only for 127.0.0.1, ::1 and localhost)."
            )
        default:
            throw PushError(.invalidEndpoint, "The \(what) '\(text)' is not an http or https URL.")
        }
    }
}
