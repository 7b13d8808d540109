import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// FCM's OAuth2 access token: granted for the service account's JWT at its `token_uri`, cached
/// until shortly before it expires, one grant in flight however many sends wait for it.
actor FCMAccessTokens {
    /// A granted token and when to stop using it.
    struct Token: Sendable, Equatable {
        var value: String
        var renewAt: Date
    }

    /// Why no token could be had.
    struct Failure: Error, Sendable {
        var reason: PushFailureReason
        var detail: String
    }

    private enum State {
        case empty
        /// A grant is under way on the first caller's task; the others wait here.
        case granting(waiters: [CheckedContinuation<Result<Token, Failure>, Never>])
        case cached(Token)
    }

    private let account: FCMServiceAccount
    private let exchange: PushHTTPExchange
    private let now: @Sendable () -> Date
    private let logger: Logger
    private var state = State.empty
    /// Grants asked for since the start (the tests' and the metrics' count).
    private(set) var grants = 0

    init(account: FCMServiceAccount, exchange: PushHTTPExchange, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.account = account
        self.exchange = exchange
        self.now = now
        self.logger = logger
    }

    /// A token valid now: the cached one, or a new grant's (joined when one is under way).
    func current() async -> Result<Token, Failure> {
        switch state {
        case .cached(let token) where now() < token.renewAt:
            return .success(token)
        case .granting(let waiters):
            return await withCheckedContinuation { continuation in
                state = .granting(waiters: waiters + [continuation])
            }
        case .empty, .cached:
            state = .granting(waiters: [])
            let result = await grant()
            guard case .granting(let waiters) = state else { preconditionFailure("the grant's state changed under it") }
            switch result {
            case .success(let token): state = .cached(token)
            case .failure: state = .empty
            }
            for waiter in waiters { waiter.resume(returning: result) }
            return result
        }
    }

    /// Drops `token` if it is still the cached one (FCM answered 401 to it), so the next
    /// `current()` grants a new one.
    func invalidate(_ token: Token) {
        if case .cached(let cached) = state, cached == token { state = .empty }
    }

    private func grant() async -> Result<Token, Failure> {
        grants += 1
        let issuedAt = now()
        let assertion: String
        do {
            assertion = try FCMAssertion.make(account: account, now: issuedAt)
        } catch {
            return .failure(Failure(reason: .auth, detail: "cannot sign the grant's JWT: \(error)"))
        }
        let request = PushHTTPRequest(
            url: account.tokenURI,
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: FCMAssertion.formBody(assertion: assertion))
        )
        switch await exchange.send(request) {
        case .failure(let failure):
            logger.warning(
                "FCM access token grant got no answer",
                metadata: ["hearth.push.token_uri": "\(account.tokenURI)", "hearth.push.error": "\(failure.detail)"]
            )
            return .failure(Failure(reason: failure.reason, detail: failure.detail))
        case .success(let answer):
            let json = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any] ?? [:]
            guard answer.isSuccess, let value = json["access_token"] as? String, !value.isEmpty,
                let lifetime = (json["expires_in"] as? NSNumber)?.intValue, lifetime > 0
            else {
                // Google's refusal: {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
                let detail =
                    "HTTP \(answer.status): \(json["error"] as? String ?? "no access_token")"
                    + ((json["error_description"] as? String).map { " (\($0))" } ?? "")
                logger.warning(
                    "FCM access token grant refused",
                    metadata: ["hearth.push.token_uri": "\(account.tokenURI)", "hearth.push.error": "\(detail)"]
                )
                return .failure(Failure(reason: .auth, detail: detail))
            }
            // Renewed a minute before it expires (half its life when it is shorter than two minutes).
            let margin = min(60, lifetime / 2)
            return .success(Token(value: value, renewAt: issuedAt.addingTimeInterval(Double(lifetime - margin))))
        }
    }
}
