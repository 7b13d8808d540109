import Synchronization

/// Namespaces that WebSocket upgrades opened while they existed nowhere (not on disk, no rules
/// file). Such a namespace costs an engine in memory until the server stops, and any client may
/// name one (`?ns=`) before it authenticates (an admin may then create it), so their number is
/// bounded: past the limit, an upgrade for another one is refused.
final class ProvisionalNamespaces: Sendable {
    private let names = Mutex<Set<String>>([])

    /// Whether `name` may be opened: it is already counted, or there is room for it once the
    /// names that have since been created on disk (`isCreated`) are dropped from the count.
    func admit(_ name: String, limit: Int, isCreated: (String) -> Bool) -> Bool {
        names.withLock { names in
            if names.contains(name) { return true }
            if names.count >= limit { names = names.filter { !isCreated($0) } }
            guard names.count < limit else { return false }
            names.insert(name)
            return true
        }
    }
}
