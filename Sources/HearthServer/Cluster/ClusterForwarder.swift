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
/// `Hearth-Forwarded: NODE:TIME:MAC`, an HMAC of the node's id, the time (Unix seconds) and what
/// the stamp is for (`binding`) under the admin secret every node shares, so the owner answers
/// it itself (never forwards it again: a namespace moving while the request travels gets 503
/// and a retry) and does not count it against the forwarding node's address. A stamp is good
/// for `validity` either side of the receiver's clock (nodes' clocks must agree that closely),
/// so one seen on the wire cannot be used later; a stamp that authorizes an action by itself
/// (an account's data deletion) binds its arguments too.
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

    /// How far a stamp's time may be from the receiver's clock.
    static let validity: Int64 = 120

    /// The header's value for this node, now, for `binding` (empty: a forward).
    func stamp(binding: String = "") -> String {
        let time = Int64(Date().timeIntervalSince1970)
        let message = Self.message(node: nodeID, time: time, binding: binding)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key)
        return nodeID + ":" + String(time) + ":" + Data(mac).base64EncodedString()
    }

    /// Whether `request` was forwarded by a node of this cluster.
    func isForwarded(_ request: Request) -> Bool {
        guard let value = request.headers[Self.header] else { return false }
        return isValidStamp(value)
    }

    /// The same for a request's head as NIO parsed it (`DirectRESTWriteHandler`).
    func isForwarded(_ head: HTTPRequestHead) -> Bool {
        guard let value = head.headers.first(name: Self.header.rawName) else { return false }
        return isValidStamp(value)
    }

    /// Whether `value` is a stamp a node of this cluster made for `binding`, within `validity`
    /// of `now` (Unix seconds).
    func isValidStamp(
        _ value: String,
        binding: String = "",
        now: Int64 = Int64(Date().timeIntervalSince1970)
    ) -> Bool {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let time = Int64(parts[1]), abs(now - time) <= Self.validity,
            let code = Data(base64Encoded: String(parts[2]))
        else { return false }
        let message = Self.message(node: String(parts[0]), time: time, binding: binding)
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Data(message.utf8), using: key)
    }

    private static func message(node: String, time: Int64, binding: String) -> String {
        node + "\n" + String(time) + "\n" + binding
    }

    /// The fields that belong to one connection, not to the request or answer (lowercased);
    /// `content-length` too, as the HTTP client frames the body itself.
    static let hopByHop: Set<String> = [
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
        outgoing.headers.add(name: Self.header.rawName, value: stamp())
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        let body = ForwardedRequestBody(request.body)
        if request.method != .get, request.method != .head {
            outgoing.body = .stream(body, length: length.map { .known($0) } ?? .unknown)
        }
        // An event stream lasts as long as its client (the client's idle read timeout ends a
        // stuck one); any other request has ten minutes.
        let stream = request.headers[.accept]?.contains("text/event-stream") == true
        let answer: HTTPClientResponse
        do {
            answer = try await client.execute(outgoing, timeout: stream ? .hours(24 * 365) : .minutes(10))
        } catch {
            // The upload broke off: its client is still sending, so a read in progress ends soon.
            await body.stop()
            throw error
        }
        var headers = HTTPFields()
        for header in answer.headers where !Self.hopByHop.contains(header.name.lowercased()) {
            if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
        }
        if let length = answer.headers.first(name: "content-length") {
            headers[.contentLength] = length
        }
        // The owner closes after this answer (an event stream does): so does this hop, and says
        // so, as the owner would to a client of its own.
        if answer.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
            headers[.connection] = "close"
        }
        // An event stream the owner opened (it closes the connection after it, and says so).
        let streams =
            stream && request.method == .get
            && answer.headers.first(name: "content-type")?.hasPrefix("text/event-stream") == true
        // The owner may have answered before it read the whole body (its client may be waiting
        // for that answer before it sends more): the answer goes out, then the forward stops
        // reading the body, and only then does Hummingbird read the rest.
        return Response(
            status: HTTPResponse.Status(code: Int(answer.status.code), reasonPhrase: answer.status.reasonPhrase),
            headers: headers,
            body: ResponseBody { writer in
                do {
                    if streams {
                        // An event stream ends when its client goes (the owner learns it when
                        // this node's connection to it closes), not at the next keep-alive.
                        try await request.body.consumeWithCancellationOnInboundClose { _ in
                            try await writer.write(answer.body)
                        }
                    } else {
                        try await writer.write(answer.body)
                    }
                    try await writer.finish(nil)
                } catch {
                    await body.stop()
                    throw error
                }
                await body.stop()
            }
        )
    }
}
