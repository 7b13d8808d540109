import HearthCore
import HearthDatabase
import HearthPush

extension ChatConsistencyCheck {
    /// The push queue at rest: every queued push is readable and still inside its retry window
    /// (24 hours from its message's commit: a running server drops it then, so one still queued
    /// was left by a server stopped since), and every intent is readable (a running server plans
    /// intents right after their commits; one older than the window was never planned).
    func pushDisagreements() -> [String] {
        var found: [String] = []
        let window = Double(PushRetryPolicy().window.components.seconds) * 1000
        var after: [UInt8]? = nil
        var overdue = 0
        var oldest: PlannedPush?
        while true {
            let page = reader.jobs(in: PushQueues.deliveries, after: after, limit: 1024)
            guard let last = page.last else { break }
            for job in page {
                guard let push = PlannedPush(decoding: job.payload), PlannedPush.device(of: job.key) != nil else {
                    found.append("a queued push (\(job.key.count)-byte key) is not readable: the next start removes it")
                    continue
                }
                if now - push.createdAt > window {
                    overdue += 1
                    if oldest.map({ push.createdAt < $0.createdAt }) ?? true { oldest = push }
                }
            }
            after = last.key
        }
        if let oldest {
            found.append(
                "\(overdue) queued push(es) are past their 24-hour retry window, the oldest \(oldest.id) to device "
                    + "\(oldest.deviceId) of \(oldest.uid), queued at \(Self.number(oldest.createdAt)): the next start "
                    + "drops them"
            )
        }
        for job in reader.jobs(in: PushQueues.intents, limit: 100_000) {
            guard let intent = PushIntent(decoding: job.payload) else {
                found.append("a push intent is not readable: the next start removes it")
                continue
            }
            if now - intent.createdAt > window {
                found.append(
                    "the push intent of chat \(intent.chatId) queued at \(Self.number(intent.createdAt)) was never planned "
                        + "and is past its 24-hour window"
                )
            }
        }
        return found
    }
}
