import Foundation
import Synchronization
import Testing

@testable import HearthAccounts

/// The one ID-token check, with a fixed clock: what it accepts and why it refuses.
struct IDTokenVerifierTests {
    static let now: Double = 1_750_000_000
    static let secret = "verifier-test-secret"
    static let signer = IDTokenSigner(secret: secret, projectID: "hearth", lifetime: 3600)

    /// Claims of a good token: signed in 10 s ago, valid for an hour.
    static func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "user_id": "ada", "sub": "ada", "iat": now - 10, "exp": now + 3600, "auth_time": now - 10,
            "firebase": ["sign_in_provider": "password"],
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func unsigned(_ claims: [String: Any]) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return header + "." + Base64URL.encode(payload) + "."
    }

    static func verifier(
        emulator: Bool = false,
        revocations: RevocationRegistry? = nil
    ) -> IDTokenVerifier {
        IDTokenVerifier(secret: secret, emulator: emulator, revocations: revocations, now: { now })
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let id: String
        let token: String
        let expected: IDTokenError?
        var testDescription: String { id }
    }

    static let cases: [Case] = [
        Case(id: "good", token: signer.sign(claims()), expected: nil),
        Case(id: "no exp", token: signer.sign(claims(["exp": nil])), expected: .malformed),
        Case(id: "exp not a number", token: signer.sign(claims(["exp": "later"])), expected: .malformed),
        Case(id: "exp passed", token: signer.sign(claims(["exp": now - 1])), expected: .expired),
        Case(id: "exp now", token: signer.sign(claims(["exp": now])), expected: .expired),
        Case(id: "no iat", token: signer.sign(claims(["iat": nil])), expected: .malformed),
        Case(id: "iat a boolean", token: signer.sign(claims(["iat": true])), expected: .malformed),
        Case(id: "iat within the skew", token: signer.sign(claims(["iat": now + 299])), expected: nil),
        Case(id: "iat beyond the skew", token: signer.sign(claims(["iat": now + 301])), expected: .malformed),
        Case(id: "no uid", token: signer.sign(claims(["user_id": nil, "sub": nil])), expected: .malformed),
        Case(id: "sub only", token: signer.sign(claims(["user_id": nil])), expected: nil),
        Case(id: "empty uid", token: signer.sign(claims(["user_id": "", "sub": nil])), expected: .malformed),
        Case(
            id: "wrong key",
            token: IDTokenSigner(secret: "other", projectID: "hearth", lifetime: 1)
                .sign(claims()),
            expected: .malformed
        ),
        Case(id: "unsigned", token: unsigned(claims()), expected: .malformed),
        Case(id: "not a JWT", token: "abc.def", expected: .malformed),
        Case(id: "signature cut", token: String(signer.sign(claims()).dropLast(3)), expected: .malformed),
        // Found by the `token` fuzz target: an `iat` or `auth_time` no Int64 holds was converted
        // unchecked, and the conversion trapped (the server crashed on a token signed with its key).
        Case(id: "iat -1e300", token: signer.sign(claims(["iat": -1e300, "auth_time": nil])), expected: .malformed),
        Case(id: "auth_time 1e19", token: signer.sign(claims(["auth_time": 1e19])), expected: .malformed),
        Case(id: "auth_time -1e300", token: signer.sign(claims(["auth_time": -1e300])), expected: .malformed),
    ]

    @Test(arguments: cases) func verdict(_ test: Case) {
        do {
            let token = try Self.verifier().verify(test.token)
            #expect(test.expected == nil, "accepted")
            #expect(token.uid == "ada")
        } catch {
            #expect(error == test.expected)
        }
    }

    @Test func aVerifiedTokenCarriesItsClaims() throws {
        let token = try Self.verifier().verify(Self.signer.sign(Self.claims(["auth_time": Self.now - 500])))
        #expect(token.uid == "ada")
        #expect(token.provider == "password")
        #expect(token.authTime == Int64(Self.now - 500))
        #expect(token.issuedAt == Int64(Self.now - 10))
        #expect(token.expiresAt == Self.now + 3600)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(token.claimsJSON)) as? [String: Any])
        #expect(claims["user_id"] as? String == "ada")
    }

    /// The SDKs' `mockUserToken` (firebase-js-sdk `createMockUserToken`): header
    /// `{"alg":"none","type":"JWT"}`, `iat` 0 unless the app gives one, `exp` an hour later,
    /// `aud`/`iss` the app's project, no signature.
    static func mockUserToken(project: String = "my-chat-app", _ changes: [String: Any?] = [:]) -> String {
        var claims: [String: Any] = [
            "iss": "https://securetoken.google.com/\(project)", "aud": project, "iat": 0, "exp": 3600,
            "auth_time": 0, "sub": "ada", "user_id": "ada",
            "firebase": ["sign_in_provider": "custom", "identities": [String: Any]()],
        ]
        for (name, value) in changes { claims[name] = value }
        let header = Base64URL.encode(Array(#"{"alg":"none","type":"JWT"}"#.utf8))
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return header + "." + Base64URL.encode(payload) + "."
    }

    /// Under the emulator an unsigned token needs only its uid: any header fields, any
    /// project, any or no times; it never expires.
    @Test func theEmulatorAcceptsUnsignedTokensWhateverTheirTimesAndProject() throws {
        let verifier = IDTokenVerifier(secret: Self.secret, emulator: true, projectID: "hearth", now: { Self.now })
        let mock = try verifier.verify(Self.mockUserToken())
        #expect(mock.uid == "ada")
        #expect(mock.provider == "custom")
        #expect(mock.expiresAt == nil)
        for changes: [String: Any?] in [
            ["exp": nil, "iat": nil, "auth_time": nil], ["iat": Self.now + 9999], ["nbf": Self.now + 9999], ["aud": 7],
        ] {
            #expect((try? verifier.verify(Self.mockUserToken(changes)))?.uid == "ada", "\(changes)")
        }
        for header in [#"{"alg":"none"}"#, #"{"alg":"none","typ":"JWT"}"#, #"{"alg":"none","kid":"x"}"#] {
            let parts = Self.mockUserToken().split(separator: ".", omittingEmptySubsequences: false)
            let token = Base64URL.encode(Array(header.utf8)) + "." + parts[1] + "."
            #expect((try? verifier.verify(token))?.uid == "ada", "\(header)")
        }
        #expect(throws: IDTokenError.malformed) {
            try verifier.verify(Self.mockUserToken(["sub": nil, "user_id": nil]))
        }
        #expect(throws: IDTokenError.malformed) { try verifier.verify(Self.mockUserToken() + "c2ln") }
        // Without the emulator, none of it.
        #expect(throws: IDTokenError.malformed) { try Self.verifier().verify(Self.mockUserToken(project: "hearth")) }
    }

    /// Under the emulator a signed token of any project verifies, and every other check stays.
    @Test func theEmulatorAcceptsSignedTokensOfAnyProjectAndKeepsTheOtherChecks() {
        let verifier = IDTokenVerifier(secret: Self.secret, emulator: true, projectID: "hearth", now: { Self.now })
        let other = IDTokenSigner(secret: Self.secret, projectID: "my-chat-app", lifetime: 3600)
        #expect((try? verifier.verify(other.sign(Self.claims(["aud": "my-chat-app"]))))?.uid == "ada")
        #expect(
            (try? verifier.verify(Self.signer.sign(Self.claims(["iss": "https://securetoken.google.com/x"]))))?.uid
                == "ada"
        )
        #expect(throws: IDTokenError.expired) { try verifier.verify(other.sign(Self.claims(["exp": Self.now - 1]))) }
        #expect(throws: IDTokenError.malformed) {
            try verifier.verify(other.sign(Self.claims(["nbf": Self.now + 301])))
        }
        #expect(throws: IDTokenError.malformed) {
            try verifier.verify(other.sign(Self.claims(["iat": Self.now + 301])))
        }
        let forged = IDTokenSigner(secret: "other", projectID: "my-chat-app", lifetime: 3600)
        #expect(throws: IDTokenError.malformed) { try verifier.verify(forged.sign(Self.claims())) }
    }

    /// An unsigned token is not revoked by time (its `auth_time` is the app's invention), but
    /// its account's disabling or deletion still refuses it.
    @Test func unsignedTokensAreRefusedForDisabledAndDeletedAccountsOnly() {
        let registry = RevocationRegistry()
        let verifier = Self.verifier(emulator: true, revocations: registry)
        registry.set("ada", .init(validSince: Int64(Self.now), disabled: false, deleted: false))
        #expect((try? verifier.verify(Self.mockUserToken()))?.uid == "ada")
        registry.set("ada", .init(validSince: Int64(Self.now), disabled: true, deleted: false))
        #expect(throws: IDTokenError.disabled) { try verifier.verify(Self.mockUserToken()) }
        registry.set("ada", .init(validSince: Int64(Self.now), disabled: false, deleted: true))
        #expect(throws: IDTokenError.deleted) { try verifier.verify(Self.mockUserToken()) }
    }

    /// A token of another project signed with the same key, or not valid yet, is refused.
    @Test func audienceIssuerAndNotBeforeAreChecked() {
        let verifier = IDTokenVerifier(
            secret: Self.secret,
            emulator: false,
            projectID: "hearth",
            now: { Self.now }
        )
        let ours = "https://securetoken.google.com/hearth"
        let accepted: [[String: Any?]] = [
            [:], ["aud": "hearth", "iss": ours], ["aud": ["other", "hearth"]], ["nbf": Self.now - 1],
            ["nbf": Self.now + 299],
        ]
        for changes in accepted {
            #expect((try? verifier.verify(Self.signer.sign(Self.claims(changes))))?.uid == "ada", "\(changes)")
        }
        let refused: [[String: Any?]] = [
            ["aud": "other"], ["aud": ["other"]], ["aud": 7], ["iss": "https://securetoken.google.com/other"],
            ["iss": "hearth"], ["nbf": Self.now + 301], ["nbf": "now"],
        ]
        for changes in refused {
            #expect(throws: IDTokenError.malformed, "\(changes)") {
                try verifier.verify(Self.signer.sign(Self.claims(changes)))
            }
        }
    }

    @Test func withoutASecretNoSignedTokenVerifies() {
        let verifier = IDTokenVerifier(secret: nil, emulator: false, now: { Self.now })
        #expect(throws: IDTokenError.malformed) { try verifier.verify(Self.signer.sign(Self.claims())) }
    }

    @Test func revokedDisabledAndDeletedAccountsAreToldApart() {
        let registry = RevocationRegistry()
        let verifier = Self.verifier(revocations: registry)
        let signedInAt = Int64(Self.now - 10)
        registry.set("ada", .init(validSince: signedInAt + 1, disabled: false, deleted: false))
        #expect(throws: IDTokenError.revoked) { try verifier.verify(Self.signer.sign(Self.claims())) }
        // `auth_time` decides, not `iat`: a token refreshed after the change is still revoked.
        #expect(throws: IDTokenError.revoked) {
            try verifier.verify(Self.signer.sign(Self.claims(["iat": Self.now])))
        }
        // Without `auth_time`, `iat` does.
        #expect(
            (try? verifier.verify(Self.signer.sign(Self.claims(["auth_time": nil, "iat": Self.now]))))?.uid == "ada"
        )
        registry.set("ada", .init(validSince: signedInAt + 1, disabled: true, deleted: false))
        #expect(throws: IDTokenError.disabled) { try verifier.verify(Self.signer.sign(Self.claims())) }
        registry.set("ada", .init(validSince: signedInAt + 1, disabled: false, deleted: true))
        #expect(throws: IDTokenError.deleted) { try verifier.verify(Self.signer.sign(Self.claims())) }
        registry.set("ada", nil)
        #expect((try? verifier.verify(Self.signer.sign(Self.claims())))?.uid == "ada")
    }

    /// A token checked once is answered from memory, and still as a fresh check would: its
    /// times against the clock now, its account's revocations now. A refused token is never kept.
    @Test func aTokenCheckedBeforeIsStillCheckedAgainstTheClockAndRevocations() throws {
        let clock = Mutex(Self.now)
        let registry = RevocationRegistry()
        let verifier = IDTokenVerifier(
            secret: Self.secret,
            emulator: false,
            revocations: registry,
            now: { clock.withLock { $0 } }
        )
        let token = Self.signer.sign(Self.claims(["nbf": Self.now - 10]))
        let first = try verifier.verify(token)
        #expect(verifier.verified.count == 1)
        #expect(try verifier.verify(token) == first)
        #expect(verifier.verified.count == 1)
        // Revoked, then disabled, then back: each use asks the registry.
        registry.set("ada", .init(validSince: Int64(Self.now), disabled: false, deleted: false))
        #expect(throws: IDTokenError.revoked) { try verifier.verify(token) }
        registry.set("ada", .init(validSince: 0, disabled: true, deleted: false))
        #expect(throws: IDTokenError.disabled) { try verifier.verify(token) }
        registry.set("ada", nil)
        #expect(try verifier.verify(token) == first)
        // A clock set back before `iat` and `nbf` (past the skew), then past `exp`.
        clock.withLock { $0 = Self.now - 400 }
        #expect(throws: IDTokenError.malformed) { try verifier.verify(token) }
        clock.withLock { $0 = Self.now + 3600 }
        #expect(throws: IDTokenError.expired) { try verifier.verify(token) }
        // Refused tokens are not kept: a bad signature, an expired one.
        let forged = String(token.dropLast(2)) + (token.hasSuffix("AA") ? "AB" : "AA")
        #expect(throws: IDTokenError.malformed) { try verifier.verify(forged) }
        #expect(throws: IDTokenError.expired) { try verifier.verify(Self.signer.sign(Self.claims(["exp": Self.now]))) }
        #expect(verifier.verified.count == 1)
    }

    @Test func theTokensKeptAreBounded() throws {
        let verifier = Self.verifier()
        for index in 0..<VerifiedTokenCache.capacity {
            _ = try verifier.verify(Self.signer.sign(Self.claims(["user_id": "u\(index)"])))
        }
        #expect(verifier.verified.count == VerifiedTokenCache.capacity)
        _ = try verifier.verify(Self.signer.sign(Self.claims(["user_id": "one-more"])))
        #expect(verifier.verified.count == 1)
    }

    /// The byte-level decoder answers as Foundation's base64 decoder does after the base64url
    /// alphabet is mapped and the padding added: for every string of a small alphabet up to
    /// five characters long, and for random longer ones.
    @Test func base64URLDecodesAsFoundationDoes() {
        func foundation(_ text: String) -> [UInt8]? {
            var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            if s.contains("=") { return nil }
            switch s.utf8.count % 4 {
            case 0: break
            case 2: s += "=="
            case 3: s += "="
            default: return nil
            }
            return Data(base64Encoded: s).map { [UInt8]($0) }
        }
        let alphabet = Array("AQw9-_+/= .")
        var texts = [""]
        var level = [""]
        for _ in 0..<5 {
            level = level.flatMap { prefix in alphabet.map { prefix + String($0) } }
            texts += level
        }
        var generator = SystemRandomNumberGenerator()
        let wide = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for _ in 0..<2_000 {
            let count = Int.random(in: 6...64, using: &generator)
            texts.append(String((0..<count).map { _ in wide.randomElement(using: &generator)! }))
        }
        for text in texts {
            #expect(Base64URL.decode(Substring(text)) == foundation(text), "\(text)")
        }
    }
}
