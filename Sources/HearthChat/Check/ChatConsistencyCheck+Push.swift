import HearthCore
import HearthDatabase
import HearthPush

extension ChatConsistencyCheck {
    /// The push queue at rest: every queued push is readable, has its content (or was queued
    /// whole by an earlier version) and is still inside its retry window (24 hours from its
    /// message's commit: a running server drops it then, so one still queued was left by a
    /// server stopped since), and every intent is readable (a running server plans intents right
    /// after their commits; one older than the window was never planned).
    func pushDisagreements() -> [String] {
        var found: [String] = []
        let window = Double(PushRetryPolicy().window.components.seconds) * 1000
        var contents: [[UInt8]: PushContent] = [:]
        var after: [UInt8]? = nil
        while true {
            let page = reader.jobs(in: PushQueues.contents, after: after, limit: 1024)
            guard let last = page.last else { break }
            for job in page {
                guard let content = PushContent(decoding: job.payload) else {
                    found.append(
                        "a push's content (\(job.key.count)-byte key) is not readable: the next start removes it"
                    )
                    continue
                }
                contents[job.key] = content
            }
            after = last.key
        }
        after = nil
        var overdue = 0
        var oldest: (id: String, uid: String, deviceId: String, createdAt: Double)?
        while true {
            let page = reader.jobs(in: PushQueues.deliveries, after: after, limit: 1024)
            guard let last = page.last else { break }
            for job in page {
                guard let device = PlannedPush.device(of: job.key) else {
                    found.append("a queued push (\(job.key.count)-byte key) is not readable: the next start removes it")
                    continue
                }
                let intentKey = Array(job.key[device.prefix.count...])
                let queued: (id: String, createdAt: Double)
                if let push = DevicePush(decoding: job.payload), let content = contents[intentKey] {
                    let subject = content.callId.map { "of call \($0)" } ?? "of message \(content.messageId ?? "")"
                    queued = ("#\(push.index) \(subject)", content.createdAt)
                } else if let legacy = PlannedPush(legacyPayload: job.payload) {
                    queued = ("\(legacy.id) (queued whole by an earlier version)", legacy.createdAt)
                } else {
                    found.append(
                        "a queued push to device \(device.deviceId) of \(device.uid) is not readable or its content is "
                            + "gone: the next start removes it"
                    )
                    continue
                }
                if now - queued.createdAt > window {
                    overdue += 1
                    if oldest.map({ queued.createdAt < $0.createdAt }) ?? true {
                        oldest = (queued.id, device.uid, device.deviceId, queued.createdAt)
                    }
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
