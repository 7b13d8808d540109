import Synchronization

/// Hands out namespace ids. Ids are handed out to namespaces before they exist on disk (most
/// never will), so the next free id at open is above both the stored counter and every
/// registered id: a registration written late may store a counter below a later one's id.
final class NamespaceIDs: Sendable {
    private let next: Mutex<UInt32>

    /// - Parameters:
    ///   - storedNext: the counter as last registered (nil in a new store).
    ///   - registered: the ids of the namespaces that exist.
    init(storedNext: UInt32?, registered: [UInt32]) {
        next = Mutex(max(storedNext ?? 1, (registered.max() ?? 0) + 1, 1))
    }

    /// A fresh id.
    func reserve() -> UInt32 {
        next.withLock { next in
            defer { next += 1 }
            return next
        }
    }

    /// The id `reserve()` would hand out next (above every id handed out).
    var nextFree: UInt32 { next.withLock { $0 } }
}
