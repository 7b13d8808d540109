import NIOCore

/// A task executor that runs jobs on one event loop: a task started with it as its preference
/// runs its nonisolated async work (a provider's `send`, the HTTP client's continuations) on
/// that loop rather than on the global concurrent pool.
///
/// The push queue starts each attempt this way, so delivering a push stays on the push
/// service's low-priority thread (docs/decisions/0018-push-delivery-beside-serving.md) instead
/// of hopping to the pool's threads, which run at the server's own priority, and back.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
