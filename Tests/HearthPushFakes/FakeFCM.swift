import CryptoExtras
import Foundation
import Synchronization

/// A fake of FCM HTTP v1 and Google's OAuth2 token endpoint on a loopback port, strict as Google:
/// the grant's JWT is verified with the public half of the service account's key and every claim
/// checked; a send needs a bearer token it issued and unexpired, and its message is checked field
/// by field against Google's `Message` resource. What it received, accepted and found wrong is
/// there to read. Errors are answered on demand (`answerNextSends`, `answerSends(toToken:with:)`).
///
/// - `POST /token`: the grant (`token_uri` of its service account).
/// - `POST /v1/projects/{project}/messages:send`: a send (`endpoint` is the `--push-fcm-endpoint`).
public final class FakeFCM: Sendable {
    public let account: FakeServiceAccount
    /// The service-account file it wrote for the provider (`--push-fcm FILE`).
    public let serviceAccountFile: String
    public let clock: FakeWallClock
    let server: LoopbackHTTPServer
    let state: Mutex<State>

    struct State {
        var nextSends: [FakeFCMAnswer] = []
        var tokenAnswers: [String: FakeFCMAnswer] = [:]
        var nextGrants: [FakeHTTPResponse] = []
        var tokenLifetime = 3600
        /// Issued access tokens and when each expires.
        var issued: [String: Date] = [:]
        var grants: [FakeFCMGrant] = []
        var sends: [FakeFCMSend] = []
        var violations: [String] = []
    }

    private init(account: FakeServiceAccount, file: String, clock: FakeWallClock, server: LoopbackHTTPServer) {
        self.account = account
        self.serviceAccountFile = file
        self.clock = clock
        self.server = server
        self.state = Mutex(State())
    }

    /// Starts the fake on a free port and writes its service account's file into `directory`.
    public static func start(
        projectID: String = "hearth-push-test",
        directory: URL,
        clock: FakeWallClock = FakeWallClock()
    ) async throws -> FakeFCM {
        // The port is known once the server listens; the handler reads the account through this box.
        let box = Mutex<FakeFCM?>(nil)
        let server = try await LoopbackHTTPServer.start(name: "fcm") { request in
            guard let fake = box.withLock({ $0 }) else { return FakeHTTPResponse(status: 503) }
            return fake.respond(to: request)
        }
        let account = try FakeServiceAccount(projectID: projectID, tokenURI: "http://127.0.0.1:\(server.port)/token")
        let file = directory.appendingPathComponent("service-account.json").path
        try account.write(to: file)
        let fake = FakeFCM(account: account, file: file, clock: clock, server: server)
        box.withLock { $0 = fake }
        return fake
    }

    /// Stops the server.
    public func shutdown() async {
        await server.shutdown()
    }

    /// The base URL to send to (`--push-fcm-endpoint`).
    public var endpoint: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    // MARK: Scripting

    /// The next sends (that pass the checks) get these answers, in order, instead of a 200.
    public func answerNextSends(_ answers: [FakeFCMAnswer]) {
        state.withLock { $0.nextSends += answers }
    }

    /// Every send to `token` gets `answer` (nil: accepted again).
    public func answerSends(toToken token: String, with answer: FakeFCMAnswer?) {
        state.withLock { $0.tokenAnswers[token] = answer }
    }

    /// The next grants (that pass the checks) get these answers instead of a token.
    public func answerNextGrants(_ answers: [FakeHTTPResponse]) {
        state.withLock { $0.nextGrants += answers }
    }

    /// Google's refusal of a grant: 400 `invalid_grant`.
    public static let invalidGrant = FakeHTTPResponse.json(
        400,
        #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#
    )

    /// The `expires_in` of the tokens it issues from now on (Google's: 3599 or 3600).
    public func setTokenLifetime(seconds: Int) {
        state.withLock { $0.tokenLifetime = seconds }
    }

    /// Every token issued so far stops working (a send with one gets 401).
    public func revokeAccessTokens() {
        state.withLock { $0.issued.removeAll() }
    }

    // MARK: What it received

    /// Every grant asked for, in order.
    public var grants: [FakeFCMGrant] { state.withLock { $0.grants } }
    /// Every send that reached the message checks, in order.
    public var sends: [FakeFCMSend] { state.withLock { $0.sends } }
    /// The sends it answered 200.
    public var accepted: [FakeFCMSend] { sends.filter { $0.answerStatus == 200 } }
    /// Every way a request broke Google's rules, with what it was (empty when all were right).
    public var violations: [String] { state.withLock { $0.violations } }

    func respond(to request: FakeHTTPRequest) -> FakeHTTPResponse {
        if request.path == "/token" { return respondToGrant(request) }
        if request.path.hasPrefix("/v1/projects/") { return respondToSend(request) }
        return violation("\(request.method) \(request.path): no such endpoint", FakeHTTPResponse(status: 404))
    }

    /// Records a violation and returns `response`.
    func violation(_ text: String, _ response: FakeHTTPResponse) -> FakeHTTPResponse {
        state.withLock { $0.violations.append(text) }
        return response
    }
}

/// One grant the fake FCM received: the JWT's header and claims, and whether it issued a token.
public struct FakeFCMGrant: Sendable {
    public var header: [String: String]
    public var claims: [String: String]
    public var accessToken: String?
}

/// One send the fake FCM received: the message's fields as Google reads them, and its answer.
public struct FakeFCMSend: Sendable {
    public var accessToken: String
    public var token: String
    public var title: String?
    public var body: String?
    public var data: [String: String]
    public var badge: Int?
    public var androidPriority: String?
    /// The message's top-level keys.
    public var messageKeys: Set<String>
    public var answerStatus: Int
}
