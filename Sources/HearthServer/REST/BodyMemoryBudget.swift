import Synchronization

/// The bytes all request bodies being read may hold in memory together. A body reserves its
/// bytes as they arrive and returns them when its request is done; a body that would pass the
/// limit is refused (503 with `Retry-After`), so that many large uploads at once cannot exhaust
/// the server's memory.
final class BodyMemoryBudget: Sendable {
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Bytes reserved now.
    var inUse: Int { used.load(ordering: .relaxed) }

    /// Reserves `bytes`; false (nothing reserved) when that would pass the limit.
    func reserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + bytes <= limit else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current,
                desired: current + bytes,
                ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
    }

    func release(_ bytes: Int) {
        used.wrappingSubtract(bytes, ordering: .relaxed)
    }

    static let exhausted = RESTError(
        .serviceUnavailable,
        "Too many request bodies in flight: the server holds at most its body memory limit at once; retry shortly."
    )
}
