import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Sends a request for a namespace another node owns to that node and streams its answer back
/// (REST and SSE; WebSocket sessions are relayed by `ClusterWebSocketRelay`). The client's
/// credentials travel as they came: the owner judges them. The forward carries
/// `Hearth-Forwarded`, an HMAC of the node's id under the admin secret every node shares, so the
/// owner answers it itself (never forwards it again: a namespace moving while the request
/// travels gets 503 and a retry) and does not count it against the forwarding node's address.
struct ClusterForwarder: Sendable {
    static let header = HTTPField.Name("Hearth-Forwarded")!

    let client: HTTPClient
    let nodeID: String
    private let key: SymmetricKey

    init(client: HTTPClient, nodeID: String, adminSecret: String) {
        self.client = client
        self.nodeID = nodeID
        key = SymmetricKey(data: Data(("hearth-forward:" + adminSecret).utf8))
    }

    /// The header's value for this node.
    var stamp: String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(nodeID.utf8), using: key)
        return nodeID + ":" + Data(mac).base64EncodedString()
    }

    /// Whether `request` was forwarded by a node of this cluster.
    func isForwarded(_ request: Request) -> Bool {
        guard let value = request.headers[Self.header] else { return false }
        return isValidStamp(value)
    }

    /// Whether `value` is a stamp a node of this cluster made.
    func isValidStamp(_ value: String) -> Bool {
        guard let colon = value.lastIndex(of: ":") else { return false }
        let node = value[..<colon]
        guard let mac = Data(base64Encoded: String(value[value.index(after: colon)...])) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(node.utf8), using: key)
    }

    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host",
        "hearth-forwarded", "content-length",
    ]

    /// Forwards `request` to the node at `base` and answers with what it answers.
    func forward(_ request: Request, to base: String) async throws -> Response {
        var outgoing = HTTPClientRequest(url: base + (request.head.path ?? "/"))
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers where !Self.hopByHop.contains(field.name.canonicalName) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        outgoing.headers.add(name: Self.header.rawName, value: stamp)
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        if request.method != .get, request.method != .head {
            outgoing.body = .stream(request.body, length: length.map { .known($0) } ?? .unknown)
        }
        // An event stream lasts as long as its client (the client's idle read timeout ends a
        // stuck one); any other request has ten minutes.
        let stream = request.headers[.accept]?.contains("text/event-stream") == true
        let answer = try await client.execute(outgoing, timeout: stream ? .hours(24 * 365) : .minutes(10))
        var headers = HTTPFields()
        for header in answer.headers where !Self.hopByHop.contains(header.name.lowercased()) {
            if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
        }
        if let length = answer.headers.first(name: "content-length") {
            headers[.contentLength] = length
        }
        return Response(
            status: HTTPResponse.Status(code: Int(answer.status.code), reasonPhrase: answer.status.reasonPhrase),
            headers: headers,
            body: ResponseBody(asyncSequence: answer.body)
        )
    }
}
