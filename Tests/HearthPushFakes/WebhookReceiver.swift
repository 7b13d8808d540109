import Crypto
import Foundation
import Synchronization

/// A receiver of Hearth's push webhook on a loopback port, as docs/push.md tells one to be: it
/// checks `Content-Type`, the body's fields, `Hearth-Push-Id` against the body's `id` and
/// `Hearth-Signature` (HMAC-SHA256 of the exact body with the secret, computed here on its own),
/// answers 401 to a bad signature and 400 to a bad body, and drops a push id it accepted before
/// (answering 200 again, counting the duplicate). Other answers on demand (`answerNext`).
public final class WebhookReceiver: Sendable {
    /// What it answers a push that passed the checks.
    public enum Answer: Sendable, Hashable {
        /// This status, with `Retry-After` when given.
        case status(Int, retryAfter: Int? = nil)
        /// 200 after `seconds` (slower than the sender's deadline).
        case slow(seconds: Int)
    }

    public let secret: String
    /// The path it listens on.
    public let path: String
    let server: LoopbackHTTPServer
    private let state: Mutex<State>

    private struct State {
        var next: [Answer] = []
        var deliveries: [WebhookDelivery] = []
        var acceptedIDs: Set<String> = []
        var duplicates: [String] = []
        var violations: [String] = []
    }

    private init(secret: String, path: String, server: LoopbackHTTPServer) {
        self.secret = secret
        self.path = path
        self.server = server
        self.state = Mutex(State())
    }

    /// Starts a receiver that verifies signatures with `secret`.
    public static func start(secret: String, path: String = "/hearth/push") async throws -> WebhookReceiver {
        let box = Mutex<WebhookReceiver?>(nil)
        let server = try await LoopbackHTTPServer.start(name: "webhook") { request in
            guard let receiver = box.withLock({ $0 }) else { return FakeHTTPResponse(status: 503) }
            return receiver.respond(to: request)
        }
        let receiver = WebhookReceiver(secret: secret, path: path, server: server)
        box.withLock { $0 = receiver }
        return receiver
    }

    /// Stops the server.
    public func shutdown() async {
        await server.shutdown()
    }

    /// The URL to POST to (`--push-webhook`).
    public var url: URL { URL(string: "http://127.0.0.1:\(server.port)\(path)")! }

    /// The next pushes that pass the checks get these answers, in order, instead of a 200.
    public func answerNext(_ answers: [Answer]) {
        state.withLock { $0.next += answers }
    }

    /// Every request it received, in order.
    public var deliveries: [WebhookDelivery] { state.withLock { $0.deliveries } }
    /// The deliveries it answered 2xx, duplicates included.
    public var accepted: [WebhookDelivery] { deliveries.filter { (200..<300).contains($0.answerStatus) } }
    /// The ids of pushes it accepted once and then received again (and dropped).
    public var duplicates: [String] { state.withLock { $0.duplicates } }
    /// The distinct push ids it accepted.
    public var acceptedIDs: Set<String> { state.withLock { $0.acceptedIDs } }
    /// Every way a request broke the contract (empty when all were right).
    public var violations: [String] { state.withLock { $0.violations } }

    func respond(to request: FakeHTTPRequest) -> FakeHTTPResponse {
        let pushID = request.header("Hearth-Push-Id") ?? ""
        let signature = request.header("Hearth-Signature") ?? ""
        let expected =
            "sha256="
            + HMAC<SHA256>.authenticationCode(for: request.body, using: SymmetricKey(data: Array(secret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
        var delivery = WebhookDelivery(
            pushID: pushID,
            signature: signature,
            signatureIsValid: signature == expected,
            body: request.body,
            json: object.map(WebhookDelivery.Fields.init) ?? nil,
            answerStatus: 0
        )
        var problems = Self.check(request, object: object, path: path)
        if !delivery.signatureIsValid { problems.append("Hearth-Signature '\(signature)' is not \(expected)") }
        return state.withLock { state in
            let response: FakeHTTPResponse
            if !problems.isEmpty {
                state.violations.append(problems.joined(separator: "; "))
                response = FakeHTTPResponse(status: delivery.signatureIsValid ? 400 : 401)
            } else if !state.next.isEmpty {
                switch state.next.removeFirst() {
                case .status(let status, let retryAfter):
                    response = FakeHTTPResponse(
                        status: status,
                        headers: retryAfter.map { [("Retry-After", "\($0)")] } ?? []
                    )
                case .slow(let seconds):
                    response = FakeHTTPResponse(status: 200, delay: .seconds(seconds))
                }
            } else {
                response = FakeHTTPResponse(status: 200)
            }
            if (200..<300).contains(response.status), problems.isEmpty {
                // Dropped by its id when seen before: still 200, so the sender stops.
                if !state.acceptedIDs.insert(pushID).inserted { state.duplicates.append(pushID) }
            }
            delivery.answerStatus = response.status
            state.deliveries.append(delivery)
            return response
        }
    }

    /// The contract's headers and body (`{"id", "uid", "deviceId", "token", "platform", "title",
    /// "body", "badge", "data": {"chatId", "messageId" | "callId"}}`).
    static func check(_ request: FakeHTTPRequest, object: [String: Any]?, path: String) -> [String] {
        var problems: [String] = []
        if request.method != "POST" || request.path != path {
            problems.append("\(request.method) \(request.path), not POST \(path)")
        }
        if request.header("Content-Type") != "application/json" {
            problems.append("Content-Type '\(request.header("Content-Type") ?? "")', not application/json")
        }
        guard let object else { return problems + ["the body is not a JSON object"] }
        let keys: Set = ["id", "uid", "deviceId", "token", "platform", "title", "body", "badge", "data"]
        if Set(object.keys) != keys { problems.append("body keys \(object.keys.sorted()), not \(keys.sorted())") }
        for key in ["id", "uid", "deviceId", "token", "title", "body"] where !(object[key] is String) {
            problems.append("'\(key)' is not a string")
        }
        if let id = object["id"] as? String, id != request.header("Hearth-Push-Id") {
            problems.append("Hearth-Push-Id '\(request.header("Hearth-Push-Id") ?? "")' is not the body's id '\(id)'")
        }
        if !["fcm", "apns", "webpush"].contains(object["platform"] as? String ?? "") {
            problems.append("'platform' is not fcm, apns or webpush")
        }
        if !(object["badge"] is Int) { problems.append("'badge' is not an integer") }
        let data = object["data"] as? [String: Any] ?? [:]
        let dataKeys = Set(data.keys)
        if dataKeys != ["chatId", "messageId"] && dataKeys != ["chatId", "callId"] {
            problems.append("data keys \(dataKeys.sorted()), not chatId with one of messageId or callId")
        }
        if data.values.contains(where: { !($0 is String) }) { problems.append("data values are not all strings") }
        return problems
    }
}

/// One request the webhook receiver got.
public struct WebhookDelivery: Sendable {
    /// The body's fields, read.
    public struct Fields: Sendable, Hashable {
        public var id: String
        public var uid: String
        public var deviceId: String
        public var token: String
        public var platform: String
        public var title: String
        public var body: String
        public var badge: Int?
        public var data: [String: String]

        init(_ object: [String: Any]) {
            id = object["id"] as? String ?? ""
            uid = object["uid"] as? String ?? ""
            deviceId = object["deviceId"] as? String ?? ""
            token = object["token"] as? String ?? ""
            platform = object["platform"] as? String ?? ""
            title = object["title"] as? String ?? ""
            body = object["body"] as? String ?? ""
            badge = object["badge"] as? Int
            data = object["data"] as? [String: String] ?? [:]
        }
    }

    public var pushID: String
    public var signature: String
    public var signatureIsValid: Bool
    /// The exact bytes received.
    public var body: [UInt8]
    public var json: Fields?
    public var answerStatus: Int
}
