public import AsyncHTTPClient
public import Foundation
public import Logging
import NIOCore

/// Delivers pushes through Firebase Cloud Messaging's HTTP v1 API (`hearth serve --push-fcm FILE`).
///
/// It signs in as the service account of the file (`FCMServiceAccount`) with OAuth2's JWT bearer
/// grant at the file's `token_uri`, keeps the access token until a minute before it expires (one
/// grant at a time however many sends need it), and POSTs each push to
/// `{endpoint}/v1/projects/{project_id}/messages:send` (`FCMMessageBody`). A 401 for the access
/// token drops it and sends once more with a new one; every other answer is mapped as
/// `FCMErrorAnswer` says.
///
/// Every platform goes through FCM when FCM is the provider: the `apns` and `webpush` tokens in
/// `devices` are then the FCM registration tokens of the iOS and web apps (FCM forwards to APNs and
/// web push with the project's credentials), not raw APNs device tokens or push subscriptions.
public struct FCMProvider: PushProvider {
    /// FCM's public endpoint; `--push-fcm-endpoint` replaces it (a local fake, a proxy).
    public static let defaultEndpoint = URL(string: "https://fcm.googleapis.com")!

    public let serviceAccount: FCMServiceAccount
    /// The URL pushes are POSTed to.
    public let sendURL: URL
    private let tokens: FCMAccessTokens
    private let exchange: PushHTTPExchange
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - endpoint: `https`, or `http` to this machine only (`PushError` otherwise).
    ///   - httpClient: shared by the providers (`PushHTTPConfiguration.makeClient()`).
    ///   - now: the wall clock the grant's JWT is dated by (`iat`, `exp`) and tokens expire by.
    public init(
        serviceAccount: FCMServiceAccount,
        endpoint: URL = FCMProvider.defaultEndpoint,
        httpClient: HTTPClient,
        configuration: PushHTTPConfiguration = PushHTTPConfiguration(),
        logger: Logger = Logger(label: "hearth.push"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let base = try PushEndpoint.check(endpoint.absoluteString, what: "FCM endpoint (--push-fcm-endpoint)")
        let project = serviceAccount.projectID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
        guard let project,
            let sendURL = URL(string: "v1/projects/\(project)/messages:send", relativeTo: Self.root(base))
        else {
            throw PushError(
                .invalidServiceAccount,
                "The service account's project_id '\(serviceAccount.projectID)' does not make an FCM URL."
            )
        }
        self.serviceAccount = serviceAccount
        self.sendURL = sendURL.absoluteURL
        self.exchange = PushHTTPExchange(client: httpClient, configuration: configuration)
        self.tokens = FCMAccessTokens(account: serviceAccount, exchange: exchange, now: now, logger: logger)
        self.now = now
    }

    /// The provider of the service-account file at `path` (`--push-fcm FILE`).
    /// - Throws: `PushError` naming the file and what is wrong with it, or the endpoint.
    public init(
        serviceAccountFile path: String,
        endpoint: URL? = nil,
        httpClient: HTTPClient,
        configuration: PushHTTPConfiguration = PushHTTPConfiguration(),
        logger: Logger = Logger(label: "hearth.push")
    ) throws {
        try self.init(
            serviceAccount: FCMServiceAccount.load(path: path),
            endpoint: endpoint ?? Self.defaultEndpoint,
            httpClient: httpClient,
            configuration: configuration,
            logger: logger
        )
    }

    /// How many access token grants were asked for so far.
    public var grantCount: Int {
        get async { await tokens.grants }
    }

    public func send(_ push: PushMessage) async -> PushOutcome {
        let body = FCMMessageBody.render(push)
        for attempt in 1...2 {
            let token: FCMAccessTokens.Token
            switch await tokens.current() {
            case .success(let current): token = current
            case .failure(let failure): return .retry(failure.reason, after: nil)
            }
            let request = PushHTTPRequest(
                url: sendURL,
                headers: ["Authorization": "Bearer \(token.value)", "Content-Type": "application/json; charset=UTF-8"],
                body: ByteBuffer(bytes: body)
            )
            let answer: PushHTTPExchange.Answer
            switch await exchange.send(request) {
            case .failure(let failure): return .retry(failure.reason, after: nil)
            case .success(let received): answer = received
            }
            if answer.isSuccess { return .accepted }
            let retryAfter = answer.retryAfter(now: now())
            let error = FCMErrorAnswer(httpStatus: answer.status, body: answer.body)
            if answer.status == 401, error?.fcmErrorCode != "THIRD_PARTY_AUTH_ERROR" {
                // The access token was refused (expired early, revoked): once more with a new one.
                await tokens.invalidate(token)
                if attempt == 1 { continue }
                return .retry(.auth, after: retryAfter)
            }
            guard let error else { return .retry(.http(answer.status), after: retryAfter) }
            return error.outcome(retryAfter: retryAfter)
        }
        return .retry(.auth, after: nil)
    }

    /// `base` as a directory, so `v1/...` resolves below its path (`http://host/prefix` → `/prefix/v1/...`).
    private static func root(_ base: URL) -> URL {
        base.absoluteString.hasSuffix("/") ? base : URL(string: base.absoluteString + "/") ?? base
    }
}
