import Foundation
import HTTPTypes
import HearthAccounts
import Hummingbird

/// Firebase Auth REST response bodies: accounts, tokens and `{"error": {...}}`.
enum AccountsResponse {
    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [
                .contentType: "application/json; charset=UTF-8",
                .cacheControl: "no-cache, no-store, max-age=0, must-revalidate",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(data)))
        )
    }

    /// `{"error": {"code": 400, "message": "EMAIL_EXISTS", "errors": [...]}}` as Firebase
    /// answers; internal failures are a 500 whose cause only the log sees.
    static func error(_ error: AccountsError) -> Response {
        let answer = ErrorAnswer.to(error)
        return failure(
            status: answer.status,
            message: answer.message,
            reason: answer.isInternal ? "backendError" : "invalid"
        )
    }

    static func failure(status: HTTPResponse.Status, message: String, reason: String) -> Response {
        json(
            [
                "error": [
                    "code": Int(status.code),
                    "message": message,
                    "errors": [["message": message, "domain": "global", "reason": reason]],
                ] as [String: Any]
            ],
            status: status
        )
    }

    static let notFound = failure(status: .notFound, message: "NOT_FOUND", reason: "notFound")

    /// `providerUserInfo` of an account.
    static func providers(_ account: AccountRecord) -> [[String: Any]] {
        guard let email = account.email else { return [] }
        var info: [String: Any] = ["providerId": "password", "email": email, "federatedId": email, "rawId": email]
        if let name = account.displayName { info["displayName"] = name }
        if let photo = account.photoUrl { info["photoUrl"] = photo }
        return [info]
    }

    /// One entry of `accounts:lookup`'s `users` (no password hash or salt).
    static func user(_ account: AccountRecord) -> [String: Any] {
        var user: [String: Any] = [
            "localId": account.localId,
            "emailVerified": account.emailVerified,
            "validSince": String(account.validSince),
            "disabled": account.disabled,
            "createdAt": String(account.createdAt),
            "providerUserInfo": providers(account),
        ]
        if let email = account.email { user["email"] = email }
        if let name = account.displayName { user["displayName"] = name }
        if let photo = account.photoUrl { user["photoUrl"] = photo }
        if let updated = account.passwordUpdatedAt { user["passwordUpdatedAt"] = updated }
        if let claims = account.customAttributes { user["customAttributes"] = claims }
        if let login = account.lastLoginAt { user["lastLoginAt"] = String(login) }
        if let refresh = account.lastRefreshAt {
            user["lastRefreshAt"] = ISO8601DateFormatter().string(
                from: Date(timeIntervalSince1970: Double(refresh) / 1000)
            )
        }
        return user
    }

    /// `idToken`, `refreshToken`, `expiresIn` (a string, as Firebase sends it).
    static func tokens(_ result: SignInResult) -> [String: Any] {
        ["idToken": result.idToken, "refreshToken": result.refreshToken, "expiresIn": String(result.expiresIn)]
    }
}
