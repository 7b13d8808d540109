import HearthStore
import NIOCore

/// How many event-loop threads serve HTTP and WebSocket connections.
public enum EventLoops {
    /// One per core. The WebSocket loops run the namespace writers' rounds of cheap writes
    /// themselves (`CallerDrains`), so a writer's thread is busy only with expensive ones and
    /// REST's. With `HEARTH_CALLER_DRAINS=0` every round runs on the writer's thread, and one
    /// loop per core less one leaves that thread a core (measured on 2 cores, docs/benchmarks.md).
    public static var recommended: Int {
        CallerDrains.enabled ? System.coreCount : max(1, System.coreCount - 1)
    }

    /// Sets the process's loop count; call once, before the server starts.
    public static func use(_ count: Int) {
        NIOSingletons.groupLoopCountSuggestion = count
    }
}
