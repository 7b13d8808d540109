/// Which conditions may read the database (`database.get/exists`), directly or through the
/// functions they call: worked out once at load, so that a request whose conditions never read
/// it is decided without a database snapshot (`StorageRules.readsDatabase`).
struct StorageDatabaseUse {
    /// Functions already looked at, by declaring scope and name.
    private var functions: [String: Bool] = [:]

    /// Whether evaluating `expression` in `scope` may call `database.get` or `database.exists`.
    mutating func reads(_ expression: StorageExpression, in scope: StorageFunctionScope) -> Bool {
        switch expression.kind {
        case .null, .bool, .int, .float, .string, .bytes, .identifier:
            return false
        case .member(let base, _), .not(let base), .negate(let base), .isType(let base, _):
            return reads(base, in: scope)
        case .index(let base, let key):
            return reads(base, in: scope) || reads(key, in: scope)
        case .slice(let base, let from, let to):
            return reads(base, in: scope) || from.map { reads($0, in: scope) } == true
                || to.map { reads($0, in: scope) } == true
        case .call(let callee, let arguments):
            if arguments.contains(where: { reads($0, in: scope) }) { return true }
            switch callee.kind {
            case .member(let base, _):
                if case .identifier("database") = base.kind { return true }
                return reads(base, in: scope)
            case .identifier(let name):
                guard let (function, declaredIn) = scope.lookup(name) else { return false }
                return reads(function, declaredIn: declaredIn)
            default:
                return reads(callee, in: scope)
            }
        case .binary(_, let left, let right), .and(let left, let right), .or(let left, let right):
            return reads(left, in: scope) || reads(right, in: scope)
        case .conditional(let condition, let then, let otherwise):
            return reads(condition, in: scope) || reads(then, in: scope) || reads(otherwise, in: scope)
        case .list(let items):
            return items.contains { reads($0, in: scope) }
        case .map(let entries):
            return entries.contains { reads($0.0, in: scope) || reads($0.1, in: scope) }
        case .path(let parts):
            return parts.contains { part in
                if case .interpolation(let inner) = part { return reads(inner, in: scope) }
                return false
            }
        }
    }

    /// Whether calling `function` (declared in `scope`) may read the database. Functions do not
    /// recurse (the checker refuses it), so the walk ends.
    private mutating func reads(_ function: StorageFunctionSyntax, declaredIn scope: StorageFunctionScope) -> Bool {
        let key = "\(ObjectIdentifier(scope).hashValue):\(function.name)"
        if let known = functions[key] { return known }
        functions[key] = false
        let result =
            function.bindings.contains { reads($0.value, in: scope) } || reads(function.result, in: scope)
        functions[key] = result
        return result
    }
}
