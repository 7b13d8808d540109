import NIOCore

/// How many event-loop threads serve HTTP and WebSocket connections.
public enum EventLoops {
    /// One per core. The WebSocket loops run the namespace writers' rounds of cheap writes
    /// themselves (`WritePass`), so a writer's thread is busy only with expensive ones and
    /// REST's.
    public static var recommended: Int { System.coreCount }

    /// Sets the process's loop count; call once, before the server starts.
    public static func use(_ count: Int) {
        NIOSingletons.groupLoopCountSuggestion = count
    }
}
