public import HearthCore

/// The `auth` variable of a signed-in user: `uid`, `provider` and `token` (every claim of the ID token).
public struct RuleAuth: Equatable, Sendable {
    public var uid: String {
        didSet { uidKey = Self.key(uid) }
    }
    /// `uid` as one child key when it is a valid key (what `child(auth.uid)` appends), else nil.
    private(set) var uidKey: ChildKey?
    public var provider: String
    /// The claims, a JSON object (`email`, `email_verified`, `firebase`, custom claims, ...).
    public var token: JSONValue

    public init(uid: String, provider: String = "password", token: JSONValue = .object([])) {
        self.uid = uid
        self.uidKey = Self.key(uid)
        self.provider = provider
        var token = token
        if case .object(let members) = token {
            if !members.contains(where: { $0.0 == "sub" }) {
                token = .object(members + [("sub", .string(uid))])
            }
        }
        self.token = token
    }

    private static func key(_ uid: String) -> ChildKey? {
        KeyValidator.isValid(uid) ? ChildKey(uid) : nil
    }

    /// Reads `{"uid": ..., "provider": ..., "token": {...}}`. Without `uid`, the token's
    /// `user_id` or `sub` claim is used; without `provider`, the token's `firebase.sign_in_provider`.
    /// Returns nil for JSON `null` (an anonymous request).
    /// - Throws: `RuleInputError` when the value is not an object or has no usable uid.
    public init?(json: JSONValue) throws(RuleInputError) {
        if case .null = json { return nil }
        guard case .object = json else { throw RuleInputError("auth must be an object or null") }
        let token = json["token"] ?? .object([])
        guard case .object = token else { throw RuleInputError("auth.token must be an object") }
        let uid = json["uid"]?.stringValue ?? token["user_id"]?.stringValue ?? token["sub"]?.stringValue
        guard let uid else { throw RuleInputError("auth needs a string 'uid' (or a token with 'user_id' or 'sub')") }
        let provider =
            json["provider"]?.stringValue ?? token["firebase"]?["sign_in_provider"]?.stringValue ?? "custom"
        self.init(uid: uid, provider: provider, token: token)
    }

    /// Builds `auth` from the verified claims of an ID token, as Firebase does: `uid` is
    /// `user_id` (or `sub`), `provider` is `firebase.sign_in_provider`.
    public init?(claims: JSONValue) {
        guard let uid = claims["user_id"]?.stringValue ?? claims["sub"]?.stringValue else { return nil }
        let provider = claims["firebase"]?["sign_in_provider"]?.stringValue ?? "custom"
        self.init(uid: uid, provider: provider, token: claims)
    }
}

/// Bad input to the rules API (a malformed `auth`, query or test case).
public struct RuleInputError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
