import CryptoExtras
import Foundation

extension FakeFCM {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// Google's OAuth2 token endpoint for a service account's JWT (RFC 7523): the form body, the
    /// JWT's RS256 signature with the account's public key, its header and every claim.
    func respondToGrant(_ request: FakeHTTPRequest) -> FakeHTTPResponse {
        let refuse = { (problem: String) -> FakeHTTPResponse in
            self.violation(
                "grant: \(problem)",
                .json(400, #"{"error":"invalid_grant","error_description":"\#(problem)"}"#)
            )
        }
        guard request.method == "POST" else { return refuse("method \(request.method), not POST") }
        guard request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true else {
            return refuse(
                "Content-Type '\(request.header("Content-Type") ?? "")', not application/x-www-form-urlencoded"
            )
        }
        guard let form = Self.formFields(String(decoding: request.body, as: UTF8.self)) else {
            return refuse("the body is not a form")
        }
        guard Set(form.keys) == ["grant_type", "assertion"] else {
            return refuse("form fields \(form.keys.sorted()), not grant_type and assertion")
        }
        guard form["grant_type"] == Self.grantType else {
            return refuse("grant_type '\(form["grant_type"] ?? "")', not \(Self.grantType)")
        }
        let parts = (form["assertion"] ?? "").split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64URLDecoded(parts[0]),
            let claimBytes = Self.base64URLDecoded(parts[1]), let signature = Self.base64URLDecoded(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerBytes)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimBytes)) as? [String: Any]
        else { return refuse("the assertion is not a JWT of three base64url parts (no padding) of JSON") }
        let signed = Array("\(parts[0]).\(parts[1])".utf8)
        guard
            account.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: signed,
                padding: .insecurePKCS1v1_5
            )
        else { return refuse("Invalid JWT Signature.") }
        var problems: [String] = []
        if header["alg"] as? String != "RS256" { problems.append("header alg \(header["alg"] ?? "none"), not RS256") }
        if header["typ"] as? String != "JWT" { problems.append("header typ \(header["typ"] ?? "none"), not JWT") }
        if header["kid"] as? String != account.privateKeyID { problems.append("header kid is not the private_key_id") }
        if claims["iss"] as? String != account.clientEmail { problems.append("iss is not the client_email") }
        let scopes = (claims["scope"] as? String ?? "").split(separator: " ").map(String.init)
        if !scopes.contains(Self.scope) { problems.append("scope '\(claims["scope"] ?? "")' lacks \(Self.scope)") }
        if claims["aud"] as? String != account.tokenURI {
            problems.append("aud '\(claims["aud"] ?? "")' is not the token_uri")
        }
        let now = Int(clock.now().timeIntervalSince1970)
        let iat = (claims["iat"] as? NSNumber)?.intValue
        let exp = (claims["exp"] as? NSNumber)?.intValue
        if let iat, let exp {
            if abs(iat - now) > 60 { problems.append("iat \(iat) is not now (\(now))") }
            if exp <= iat || exp - iat > 3600 {
                problems.append("exp \(exp) is not after iat \(iat) by at most 3600 s")
            }
        } else {
            problems.append("iat or exp is missing or not a number")
        }
        let unexpected = Set(claims.keys).subtracting(["iss", "scope", "aud", "iat", "exp", "sub"])
        if !unexpected.isEmpty { problems.append("unexpected claims \(unexpected.sorted())") }
        let record = FakeFCMGrant(
            header: header.mapValues { "\($0)" },
            claims: claims.mapValues { "\($0)" },
            accessToken: nil
        )
        if !problems.isEmpty {
            state.withLock { $0.grants.append(record) }
            return refuse(problems.joined(separator: "; "))
        }
        return state.withLock { state in
            var record = record
            if !state.nextGrants.isEmpty {
                state.grants.append(record)
                return state.nextGrants.removeFirst()
            }
            let token = "ya29.fake-\(state.grants.count + 1)-\(UInt32.random(in: 0...UInt32.max))"
            state.issued[token] = clock.now().addingTimeInterval(Double(state.tokenLifetime))
            record.accessToken = token
            state.grants.append(record)
            return .json(
                200,
                #"{"access_token":"\#(token)","expires_in":\#(state.tokenLifetime),"token_type":"Bearer"}"#
            )
        }
    }

    /// `application/x-www-form-urlencoded` fields, percent-decoded (`+` is a space).
    static func formFields(_ text: String) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2,
                let key = parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                let value = parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            else { return nil }
            fields[key] = value
        }
        return fields
    }

    /// base64url without padding (RFC 7515 §2), or nil when it is not that.
    static func base64URLDecoded(_ text: Substring) -> Data? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
