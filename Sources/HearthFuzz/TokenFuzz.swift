import Crypto
import HearthFuzzSupport

@testable import HearthAccounts

/// ID-token verification (`IDTokenVerifier`, HS256 with a fixed key): it never crashes, and it never
/// accepts a token that the key did not sign. The first byte chooses what the rest is:
/// - 0: a whole token, verified as sent;
/// - 1: a payload, signed HS256 with the key, so the fuzzer reaches the claims checks: an accepted token
///   has a uid, an `exp` in the future and an `iat` not ahead of now;
/// - 2: the same, signed with another key, or 3: sent unsigned (`alg: none`): never accepted.
enum TokenFuzz {
    static let secret = "fuzz-secret-0123456789abcdef"
    static let now = 1_700_000_000.0
    static let verifier = IDTokenVerifier(secret: secret, emulator: false, now: { TokenFuzz.now })
    static let signer = IDTokenSigner(secret: secret, projectID: "fuzz", lifetime: 3600)
    static let otherSigner = IDTokenSigner(secret: "another-key", projectID: "fuzz", lifetime: 3600)

    static let target = FuzzTarget(name: "token") { input in
        guard let mode = input.first else { return }
        let rest = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        switch mode % 4 {
        case 0:
            let token = rest.text
            guard let verified = try? verifier.verify(token) else { return }
            require(isSignedWithKey(token), "accepted a token the key did not sign: \(token)")
            check(verified)
        case 1:
            let token = signed(Array(rest), by: signer.key)
            if let verified = try? verifier.verify(token) { check(verified) }
        case 2:
            let token = signed(Array(rest), by: otherSigner.key)
            require((try? verifier.verify(token)) == nil, "accepted a token signed with another key: \(token)")
        default:
            let token =
                Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(rest) + "."
            require((try? verifier.verify(token)) == nil, "accepted an unsigned token: \(token)")
        }
    }

    /// `header.payload.signature`: `payload` signed HS256 with `key`.
    static func signed(_ payload: [UInt8], by key: SymmetricKey) -> String {
        let signingInput = IDTokenSigner.header + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(mac(Array(signingInput.utf8), key: key))
    }

    /// Whether the token's signature is the key's HMAC of its header and payload.
    static func isSignedWithKey(_ token: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64URL.decode(parts[2]) else { return false }
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        return signature == mac(signingInput, key: signer.key)
    }

    static func mac(_ message: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    static func check(_ verified: VerifiedIDToken) {
        require(!verified.uid.isEmpty, "accepted a token without a uid")
        require((verified.expiresAt ?? 0) > now, "accepted an expired token")
        require(Double(verified.issuedAt) <= now + IDTokenVerifier.allowedClockSkew, "accepted a token from the future")
    }
}
