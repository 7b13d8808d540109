import Foundation

/// Where another node of the cluster listens, from its advertised `http://HOST[:PORT]` URL:
/// what the relays (`ClusterWebSocketRelay`, `ClusterRESTRelay`) connect to and name in `Host`.
struct OwnerAddress: Sendable {
    let host: String
    let port: Int

    /// Nil when `url` is not an `http://` URL with a host.
    init?(url: String) {
        guard let components = URLComponents(string: url), let host = components.host, components.scheme == "http"
        else { return nil }
        self.host = host
        port = components.port ?? 80
    }

    /// `HOST:PORT`, the `Host` a request to the node names.
    var authority: String { "\(host):\(port)" }
}
