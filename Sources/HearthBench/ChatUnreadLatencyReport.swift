/// One message of `chat-unread-latency`: when it was due and when it was sent (monotonic nanoseconds).
struct UnreadSend: Sendable {
    var due: UInt64
    var sentAt: UInt64
}

/// Joins the messages sent into each group with the arrivals at each member's connection: the
/// j-th message of a group (from 0) arrives with the count j + 1. Only messages due in the
/// measured window count; the group's first member (the sender) expects none.
struct UnreadLatencyTally {
    /// By group, in order.
    let sends: [[UnreadSend]]
    /// By connection (group × members + member).
    let arrivals: [[UInt64]]
    let membersPerGroup: Int
    let window: MeasuredWindow

    func report(
        options: ChatUnreadOptions,
        seconds: Double,
        warmupSeconds: Double,
        written: WriterResult,
        unanswered: Int,
        results: [UnreadRecorder.Result],
        scheduledMessages: Int,
        cpu: CPUWindow
    ) -> ChatUnreadLatencyReport {
        let measured = sends.map { $0.filter { $0.due >= window.start && $0.due < window.end } }
        let lags = measured.flatMap { $0.map { micros($0.sentAt, after: $0.due) } }.sorted()
        var latencies: [UInt32] = []
        var fromDue: [UInt32] = []
        var expected = 0
        for (connection, arrived) in arrivals.enumerated() where connection % membersPerGroup != 0 {
            for (j, send) in sends[connection / membersPerGroup].enumerated()
            where send.due >= window.start && send.due < window.end {
                expected += 1
                guard j < arrived.count else { continue }
                latencies.append(micros(arrived[j], after: send.sentAt))
                fromDue.append(micros(arrived[j], after: send.due))
            }
        }
        latencies.sort()
        fromDue.sort()
        let acks = written.latencies.sorted()
        let messages = lags.count
        let lagP99 = ms(percentile(lags, 99))
        let closed = results.compactMap(\.closedReason)
        let errors = written.errors + unanswered
        let p99 = ms(percentile(latencies, 99))
        let fellBehind = lagP99 > 1 || messages < scheduledMessages
        let missing = expected - latencies.count
        // The sender's own count never moves.
        let senderCounts = stride(from: 0, to: arrivals.count, by: membersPerGroup).reduce(0) {
            $0 + arrivals[$1].count
        }
        let unansweredError = unanswered > 0 ? "\(unanswered) sender(s) still had messages unanswered" : nil
        return ChatUnreadLatencyReport(
            groups: options.groups,
            membersPerGroup: membersPerGroup,
            connections: arrivals.count,
            senders: options.senders,
            targetRate: Double(options.rate),
            seconds: seconds,
            warmupSeconds: warmupSeconds,
            messages: messages,
            messagesPerS: (Double(messages) / seconds).rounded(),
            acked: written.acked,
            errors: errors,
            firstError: written.firstError ?? unansweredError ?? closed.first,
            deliveriesExpected: expected,
            deliveriesSeen: latencies.count,
            deliveriesMissing: missing,
            coalescedPushes: results.reduce(0) { $0 + $1.jumps },
            unexpectedCounts: results.reduce(0) { $0 + $1.beyond } + senderCounts,
            p50Ms: ms(percentile(latencies, 50)),
            p90Ms: ms(percentile(latencies, 90)),
            p99Ms: p99,
            maxMs: ms(Double(latencies.last ?? 0)),
            fromDueP99Ms: ms(percentile(fromDue, 99)),
            ackP50Ms: ms(percentile(acks, 50)),
            ackP99Ms: ms(percentile(acks, 99)),
            senderLagP99Ms: lagP99,
            senderLagMaxMs: ms(Double(lags.last ?? 0)),
            lateSends: lags.count { $0 > 1_000 },
            fellBehind: fellBehind,
            connectionsClosed: closed.count,
            cpu: cpu,
            targetP99Ms: 10,
            meetsTarget: p99 <= 10 && !latencies.isEmpty && missing == 0 && errors == 0 && closed.isEmpty
                && Double(messages) >= 0.99 * Double(scheduledMessages)
        )
    }

    private func micros(_ later: UInt64, after earlier: UInt64) -> UInt32 {
        UInt32(clamping: later > earlier ? (later - earlier) / 1_000 : 0)
    }

    private func ms(_ micros: Double) -> Double { r3(micros / 1_000) }
}

struct ChatUnreadLatencyReport: Encodable, Sendable {
    var groups: Int
    var membersPerGroup: Int
    /// Member WebSockets, each listening on its `userChats/<uid>`.
    var connections: Int
    var senders: Int
    var targetRate: Double
    var seconds: Double
    var warmupSeconds: Double
    /// Messages due in the measured window and sent, and per second.
    var messages: Int
    var messagesPerS: Double
    /// Messages answered `ok` over the whole run (warm-up included).
    var acked: Int
    var errors: Int
    var firstError: String?
    /// For the window's messages: (members − 1) each; seen by the drain's end; missing.
    var deliveriesExpected: Int
    var deliveriesSeen: Int
    var deliveriesMissing: Int
    /// Pushes that raised a count by more than one (several messages in one update).
    var coalescedPushes: Int
    /// Counts the run cannot make: higher than its messages, or any at a sender's own entry.
    var unexpectedCounts: Int
    /// Message sent → the member's push with its count arrived.
    var p50Ms: Double
    var p90Ms: Double
    var p99Ms: Double
    var maxMs: Double
    /// The same from the time the message was due (adds the sender's lag).
    var fromDueP99Ms: Double
    /// Message sent → the sender's `ok`.
    var ackP50Ms: Double
    var ackP99Ms: Double
    /// How late the senders sent (sent − due); `late_sends` over 1 ms; `fell_behind` when the p99
    /// lag is over 1 ms (the offered load came in bursts) or a due message was never sent. The
    /// latencies count from the actual send either way; `from_due_p99_ms` includes the lag.
    var senderLagP99Ms: Double
    var senderLagMaxMs: Double
    var lateSends: Int
    var fellBehind: Bool
    var connectionsClosed: Int
    /// CPU of the benchmark and (with `--server-pid`) the server in the window; per message.
    var cpu: CPUWindow
    var targetP99Ms: Double
    var meetsTarget: Bool
}
