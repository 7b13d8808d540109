import NIOCore

/// How many event-loop threads serve HTTP and WebSocket connections.
public enum EventLoops {
    /// One per core less one, at least one: each namespace has a serial writer thread that is
    /// busy whenever writes arrive, and on a small machine a loop per core leaves it contending
    /// with the loops for the cores (measured on 2 cores: 16 WebSocket connections' acked puts
    /// rise from ~40,000 to ~44,000/s with one loop; docs/benchmarks.md).
    public static var recommended: Int { max(1, System.coreCount - 1) }

    /// Sets the process's loop count; call once, before the server starts.
    public static func use(_ count: Int) {
        NIOSingletons.groupLoopCountSuggestion = count
    }
}
