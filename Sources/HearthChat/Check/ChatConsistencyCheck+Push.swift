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

    /// No call is still `ringing` past its 45-second timeout: a running server marks it
    /// `missed`, so one left `ringing` was left by a server stopped since (its next start marks it).
    func callDisagreements() -> [String] {
        var found: [String] = []
        let calls = DataPath(keys: [ChildKey("calls")])
        guard case .children(let children) = reader.shallow(at: calls) else { return [] }
        for child in children {
            let state = reader.node(at: calls.child(child.key).child(ChildKey("state")))
            guard state == .leaf(.string("ringing"), priority: nil) else { continue }
            let createdAt = reader.node(at: calls.child(child.key).child(ChildKey("createdAt")))
            guard case .leaf(.number(let started), _)? = createdAt else {
                found.append("calls/\(child.key.string) is ringing without a numeric createdAt")
                continue
            }
            if now - started > Self.ringingTimeout {
                found.append(
                    "calls/\(child.key.string) is still ringing \(Self.number((now - started) / 1000)) s after its "
                        + "createdAt: past the 45 s timeout (the next start marks it missed)"
                )
            }
        }
        return found
    }

    /// How long a call rings before it is missed (milliseconds), with a second of slack.
    static let ringingTimeout: Double = 46_000
}
