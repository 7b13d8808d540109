import Synchronization

/// A namespace's serial delivery queue: jobs are appended without blocking (the store's writer
/// appends commits) and handled one at a time, in order, by one drain task that exists only
/// while there is work. Fan-out never runs on the writer and never holds it up.
///
/// A commit announced while no listener is registered (every registration queued before it
/// was also unregistered before it) reaches nobody, so it is not queued at all: a namespace
/// without listeners costs its writes no fan-out task.
final class DeliveryQueue: Sendable {
    private struct Inbox {
        var jobs: [FanoutJob] = []
        var draining = false
        /// Registrations queued and not yet unregistered, in queue order.
        var registered = Set<UInt64>()
    }

    private let inbox = Mutex(Inbox())
    private let fanout: Fanout

    init(fanout: Fanout) {
        self.fanout = fanout
    }

    func enqueue(_ job: FanoutJob) {
        var idle = false
        let start = inbox.withLock { inbox -> Bool in
            switch job {
            case .commit:
                if inbox.registered.isEmpty { return false }
            case .register(let registration, _):
                inbox.registered.insert(registration.id)
            case .unregister(let id):
                inbox.registered.remove(id)
            case .after:
                // Nothing queued or under way: every earlier job is done.
                if !inbox.draining {
                    idle = true
                    return false
                }
            case .activate:
                break
            }
            inbox.jobs.append(job)
            if inbox.draining { return false }
            inbox.draining = true
            return true
        }
        if start {
            Task(priority: .userInitiated) { await self.drain() }
        } else if idle, case .after(let action) = job {
            action()
        }
    }

    /// Returns once every job enqueued before the call is done.
    func barrier() async {
        await withCheckedContinuation { continuation in enqueue(.after { continuation.resume() }) }
    }

    private func drain() async {
        while true {
            let jobs = inbox.withLock { inbox -> [FanoutJob] in
                let jobs = inbox.jobs
                inbox.jobs = []
                if jobs.isEmpty { inbox.draining = false }
                return jobs
            }
            if jobs.isEmpty { return }
            await fanout.process(jobs)
        }
    }
}
