import NIOCore

/// When and where the messages of `chat-unread-latency` go: message n (from 0, all senders
/// together) is due at `start + n × spacing` (absolute times: a late message does not delay the
/// next), into group `n mod groups`, by sender `n mod senders`. Senders divide the groups, so a
/// group's messages all leave through one connection, in order, and its j-th message (from 0) is
/// the one that makes its members' `unread` j + 1.
struct UnreadSchedule: Sendable {
    let groups: Int
    let senders: Int
    let start: UInt64
    /// Nanoseconds between two messages (all senders together).
    let spacing: UInt64

    /// The message that sender `k` sends as its `i`-th: its number, its group and its index there.
    func message(sender k: Int, sequence i: Int) -> (number: Int, group: Int, index: Int) {
        let n = k + i * senders
        return (n, n % groups, n / groups)
    }

    func due(_ number: Int) -> UInt64 { start + UInt64(number) * spacing }

    /// The messages due in the window.
    func numbers(dueIn window: MeasuredWindow) -> Range<Int> {
        func first(dueFrom time: UInt64) -> Int {
            time <= start ? 0 : Int((time - start + spacing - 1) / spacing)
        }
        return first(dueFrom: window.start)..<first(dueFrom: window.end)
    }
}

/// One sender's send times (monotonic nanoseconds), by its sequence number. Written by its
/// writer's encoder on the connection's loop; read once the writer has stopped.
final class UnreadSendLog: @unchecked Sendable {
    var sentAt: [UInt64] = []
}

/// The senders of `chat-unread-latency`: one `WebSocketWriter` each, paced by the schedule, each
/// message a `p` of `/messages/<chat>/s<9-digit index>` from the group's first member.
struct UnreadSenders {
    let schedule: UnreadSchedule
    let chats: [String]
    let senderUIDs: [String]

    private static let requestHead = Array(#"{"t":"d","d":{"r":"#.utf8)

    /// Starts a writer on each connection (as many as the schedule's senders).
    func start(
        on connections: [WebSocketConnection],
        measureFrom: UInt64,
        deadline: UInt64
    ) -> [(result: EventLoopFuture<WriterResult>, log: UnreadSendLog)] {
        let heads = chats.map { Array(#","a":"p","b":{"p":"/messages/\#($0)/s"#.utf8) }
        let tails = senderUIDs.map { Array(#"","d":\#(ChatGroupSeed.message(from: $0))}}}"#.utf8) }
        let schedule = self.schedule
        return connections.enumerated().map { k, ws in
            let log = UnreadSendLog()
            log.sentAt.reserveCapacity(1 << 14)
            let writer = WebSocketWriter(
                connection: ws,
                mode: .paced(
                    start: schedule.start,
                    phase: UInt64(k) * schedule.spacing,
                    interval: UInt64(schedule.senders) * schedule.spacing
                ),
                measureFrom: measureFrom,
                deadline: deadline
            ) { out, id, sequence, now in
                // {"t":"d","d":{"r":ID,"a":"p","b":{"p":"/messages/CHAT/sINDEX","d":MESSAGE}}}
                let (_, group, index) = schedule.message(sender: k, sequence: sequence)
                log.sentAt.append(now)
                out.append(contentsOf: Self.requestHead)
                appendDecimal(id, to: &out)
                out.append(contentsOf: heads[group])
                let digits = String(index)
                out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 9 - digits.utf8.count)))
                out.append(contentsOf: digits.utf8)
                out.append(contentsOf: tails[group])
            }
            return (result: writer.run(), log: log)
        }
    }
}

/// The future's value, or nil when it has none by `deadline` (monotonic nanoseconds): a wait
/// that ends by itself.
func value<T: Sendable>(of future: EventLoopFuture<T>, before deadline: UInt64) async throws -> T? {
    let loop = future.eventLoop
    return try await loop.flatSubmit { () -> EventLoopFuture<T?> in
        let promise = loop.makePromise(of: T?.self)
        let settled = NIOLoopBoundBox(false, eventLoop: loop)
        let timeout = loop.scheduleTask(deadline: .uptimeNanoseconds(deadline)) {
            guard !settled.value else { return }
            settled.value = true
            promise.succeed(nil)
        }
        future.whenComplete { result in
            timeout.cancel()
            guard !settled.value else { return }
            settled.value = true
            promise.completeWith(result.map { Optional($0) })
        }
        return promise.futureResult
    }.get()
}
