public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1

/// Delivers each push as one signed POST to a URL of the operator's (`hearth serve
/// --push-webhook URL`), whatever the device's platform: the receiver sends it on.
///
/// The body is `PushMessage.webhookBody`; the headers are `Content-Type: application/json`,
/// `Hearth-Push-Id` (the push's id, the same on every attempt: a receiver drops a push it has
/// seen, see docs/push.md) and `Hearth-Signature` (`WebhookSignature`). A 2xx accepts the push;
/// any other answer, or none (refused, timed out), is retried, not before the answer's
/// `Retry-After` when it has one.
public struct WebhookProvider: PushProvider {
    /// The URL pushes are POSTed to.
    public let url: URL
    private let secret: String
    private let exchange: PushHTTPExchange

    /// - Parameters:
    ///   - url: an `http` or `https` URL.
    ///   - secret: the HMAC key, the server's admin secret. Never logged.
    ///   - httpClient: shared by the providers (`PushHTTPConfiguration.makeClient()`).
    /// - Throws: `PushError` when `url` is not an http(s) URL with a host.
    public init(
        url: URL,
        secret: String,
        httpClient: HTTPClient,
        configuration: PushHTTPConfiguration = PushHTTPConfiguration()
    ) throws {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw PushError(
                .invalidWebhook,
                "The push webhook URL '\(url.absoluteString)' is not an http or https URL with a host: "
                    + "pass one like https://push.example.com/hearth to --push-webhook."
            )
        }
        guard !secret.isEmpty else {
            throw PushError(
                .invalidWebhook,
                "The push webhook needs the admin secret to sign its bodies: set --admin-secret."
            )
        }
        self.url = url
        self.secret = secret
        self.exchange = PushHTTPExchange(client: httpClient, configuration: configuration)
    }

    public func send(_ push: PushMessage) async -> PushOutcome {
        let body = push.webhookBody
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "Hearth-Push-Id": push.id,
            WebhookSignature.headerName: WebhookSignature.value(for: body, secret: secret),
        ]
        switch await exchange.send(PushHTTPRequest(url: url, headers: headers, body: ByteBuffer(bytes: body))) {
        case .success(let answer) where answer.isSuccess:
            return .accepted
        case .success(let answer):
            return .retry(.http(answer.status), after: answer.retryAfter(now: Date()))
        case .failure(let failure):
            return .retry(failure.reason, after: nil)
        }
    }
}
