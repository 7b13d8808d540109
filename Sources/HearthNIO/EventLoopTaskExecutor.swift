public import NIOCore

/// A task executor that runs a task's jobs on one event loop (`Task(executorPreference:)`):
/// the task's nonisolated async work and the resumptions of what it awaits run on that loop
/// rather than on Swift's global pool. Only for work that suspends (the store and the HTTP
/// client run on their own threads or loops) and never blocks the loop.
///
/// Used by the push queue, so a delivery stays on the push service's low-priority thread
/// (docs/decisions/0018-push-delivery-beside-serving.md), and by the realtime endpoint, so a
/// connection's short database actions (writes, gets, onDisconnect) start on its loop and
/// resume there when the store answers, without a hop through the global pool; and by a
/// cluster node's PostgreSQL links, so a prepared statement (which postgres-nio runs as async
/// code) is sent and its rows read on the connection's own loop (decision 0021's addendum).
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
