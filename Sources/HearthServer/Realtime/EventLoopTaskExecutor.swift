import NIOCore

/// Runs a task's jobs on one event loop (`Task(executorPreference:)`): a connection's short
/// database actions (writes, gets, onDisconnect) start on its loop and resume there when the
/// store answers, so the outcome reaches the session without a hop through the global executor.
/// Only for work that suspends (the store runs on its own queues) and never blocks the loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
