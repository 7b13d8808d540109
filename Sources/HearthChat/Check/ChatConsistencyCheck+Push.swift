import HearthCore
import HearthDatabase
import HearthPush

extension ChatConsistencyCheck {
    /// The push queue at rest: every planned intent is readable and still inside its retry
    /// window (24 hours from its commit: a running server drops its pushes then, so one with
    /// pushes not done was left by a server stopped since), every done set belongs to a planned
    /// intent, pushes queued whole by an earlier version are readable, and every intent is
    /// readable (a running server plans intents right after their commits; one older than the
    /// window was never planned).
    func pushDisagreements() -> [String] {
        var found: [String] = []
        let window = Double(PushRetryPolicy().window.components.seconds) * 1000
        var planned: Set<[UInt8]> = []
        var overdue = 0
        var oldest: (subject: String, createdAt: Double)?
        reader.forEachJob(in: PushQueues.planned) { job in
            planned.insert(job.key)
            guard let intent = PlannedIntent(decoding: job.payload) else {
                found.append(
                    "a planned push intent (\(job.key.count)-byte key) is not readable: the next start removes it"
                )
                return
            }
            let content = intent.content
            guard now - content.createdAt > window else { return }
            overdue += 1
            if oldest.map({ content.createdAt < $0.createdAt }) ?? true {
                let subject = content.callId.map { "call \($0)" } ?? "message \(content.messageId ?? "")"
                oldest = ("\(subject) in chat \(content.chatId)", content.createdAt)
            }
        }
        if let oldest {
            found.append(
                "\(overdue) planned push intent(s) are past their 24-hour retry window, the oldest of \(oldest.subject), "
                    + "queued at \(Self.number(oldest.createdAt)): the next start tries each of their pushes once more, then drops it"
            )
        }
        reader.forEachJob(in: PushQueues.done) { job in
            if !planned.contains(job.key) {
                found.append(
                    "a push done set (\(job.key.count)-byte key) has no planned intent: the next start removes it"
                )
            }
        }
        reader.forEachJob(in: PushQueues.legacyDeliveries) { job in
            if PushDeviceKey.device(of: job.key) == nil || LegacyQueuedPush(payload: job.payload) == nil {
                found.append("a push queued by an earlier version is not readable: the next start removes it")
            }
        }
        reader.forEachJob(in: PushQueues.intents) { job in
            guard let intent = PushIntent(decoding: job.payload) else {
                found.append("a push intent is not readable: the next start removes it")
                return
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
