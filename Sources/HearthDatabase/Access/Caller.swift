public import HearthRules

/// Who an operation acts for, as the rules see it: the admin (rules do not apply), a signed-in
/// user (`auth` is set) or an anonymous caller (`auth == null`).
public enum Caller: Sendable, Equatable {
    case admin
    case anonymous
    case user(RuleAuth)

    /// The `auth` variable: nil for anonymous callers (and unused for the admin).
    public var auth: RuleAuth? {
        if case .user(let auth) = self { return auth }
        return nil
    }

    public var bypassesRules: Bool { self == .admin }
}
