import Crypto
import Foundation
import HearthAccounts

/// HS256 ID tokens as the auth service mints them.
public enum TokenMinter {
    public static func token(
        uid: String = "alice",
        secret: String = TestServer.jwtSecret,
        expiresIn: Double = 3600,
        issuedAgo: Double = 10,
        algorithm: String = "HS256"
    ) -> String {
        let now = Date().timeIntervalSince1970
        let header = "{\"alg\":\"\(algorithm)\",\"typ\":\"JWT\"}"
        let payload =
            "{\"user_id\":\"\(uid)\",\"sub\":\"\(uid)\",\"iat\":\(Int(now - issuedAgo)),\"exp\":\(Int(now + expiresIn)),"
            + "\"firebase\":{\"sign_in_provider\":\"password\"}}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        guard algorithm == "HS256" else { return signingInput + "." }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array(signingInput.utf8),
            using: SymmetricKey(data: Array(secret.utf8))
        )
        return signingInput + "." + Base64URL.encode(Array(mac))
    }
}
