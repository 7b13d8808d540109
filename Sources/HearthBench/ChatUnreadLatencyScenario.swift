import ArgumentParser
import NIOCore
import NIOPosix

/// Options of `chat-unread-latency`.
struct ChatUnreadOptions: ParsableArguments {
    @Option(help: "chat-unread-latency: messages per second, all groups together (paced, open loop).")
    var rate = 1_000

    @Option(help: "chat-unread-latency: groups; messages go to them in turn.")
    var groups = 100

    @Option(help: "chat-unread-latency: members per group, each with a WebSocket of its own (groups × members).")
    var groupMembers = 10

    @Option(help: "chat-unread-latency: WebSocket connections sending the messages; they must divide --groups.")
    var senders = 10

    @Option(help: "chat-unread-latency: seconds to wait after the last message for deliveries still missing.")
    var drainTimeout = 5.0

    /// The server's default connection cap (`hearth serve --max-connections`).
    static let maxConnections = 10_000

    func validate() throws {
        guard (1...100_000).contains(rate) else {
            throw ValidationError("--rate must be 1 to 100000 messages per second, not \(rate)")
        }
        guard groups >= 1, (2...1_000).contains(groupMembers) else {
            throw ValidationError("--groups must be at least 1 and --group-members 2 to 1000")
        }
        guard groups * groupMembers + senders <= Self.maxConnections else {
            throw ValidationError(
                "--groups × --group-members + --senders is \(groups * groupMembers + senders) WebSocket "
                    + "connections, more than the server's default cap of \(Self.maxConnections): lower them"
            )
        }
        guard senders >= 1, groups % senders == 0 else {
            throw ValidationError(
                "--senders (\(senders)) must divide --groups (\(groups)): each group's messages leave by one connection"
            )
        }
        guard drainTimeout > 0, drainTimeout <= 60 else {
            throw ValidationError("--drain-timeout must be more than 0 and at most 60 seconds, not \(drainTimeout)")
        }
    }
}

/// `chat-unread-latency`: from a message's write to the other members' `unread` update on their
/// own WebSockets. `--groups` groups of `--group-members` members, each member with one
/// authenticated WebSocket listening on its chat list `userChats/<uid>`; each group's first
/// member sends (`p` of `/messages/<chat>/s<index>` over `--senders` connections), paced open loop
/// at `--rate` messages per second over the groups in turn, for `--warmup` + `--duration`
/// seconds, then at most `--drain-timeout` seconds for late deliveries (missing ones are counted).
/// Latency: the push carrying the member's new count arrives − the message was sent, on this
/// process's monotonic clock. The server must run the chat app in `--ns` (`--chat-ns bench`).
struct ChatUnreadLatencyScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var options: ChatUnreadOptions
    var seconds: Double
    var warmupSeconds: Double
    var serverPid: Int?

    func run() async throws -> ChatUnreadLatencyReport {
        guard let credential = target.adminSecret else {
            throw ValidationError("chat-unread-latency needs --admin-secret (its WebSockets authenticate with it)")
        }
        let runID = PushIDGenerator.fresh()
        let chats = (0..<options.groups).map { "bench-\(runID)-g\($0)" }
        let users = (0..<options.groups).map { g in (0..<options.groupMembers).map { "\(runID)-g\(g)m\($0)" } }
        let count = options.groups * options.groupMembers
        let files = UInt64(count + options.senders + 64)
        if let limit = raiseFileLimit(to: files), limit < files {
            throw BenchError(
                "chat-unread-latency opens \(count + options.senders) WebSockets but the open-file limit is "
                    + "\(limit): raise it with `ulimit -n \(files)` or lower --groups / --group-members"
            )
        }
        progress("chat-unread-latency: seeding \(options.groups) groups of \(options.groupMembers) (run \(runID))")
        try await withConnection(to: target, on: group.next()) { connection in
            for (chat, members) in zip(chats, users) {
                try await ChatGroupSeed(chat: chat, users: members).write(over: connection, to: target)
            }
        }
        progress("chat-unread-latency: opening \(count) member WebSockets, each listening on its userChats")
        let members = try await WebSocketConnection.openAuthenticated(
            count,
            to: target,
            on: group,
            credential: credential
        )
        let senderLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var senders: [WebSocketConnection] = []
        do {
            senders = try await WebSocketConnection.openAuthenticated(
                options.senders,
                to: target,
                on: senderLoops,
                credential: credential
            )
            let report = try await measure(members: members, senders: senders, chats: chats, users: users)
            await closeAll(members + senders)
            try? await senderLoops.shutdownGracefully()
            return report
        } catch {
            await closeAll(members + senders)
            try? await senderLoops.shutdownGracefully()
            throw error
        }
    }

    private func measure(
        members: [WebSocketConnection],
        senders: [WebSocketConnection],
        chats: [String],
        users: [[String]]
    ) async throws -> ChatUnreadLatencyReport {
        let perGroup = options.groupMembers
        let maxCount = Int((warmupSeconds + seconds + 1) * Double(options.rate)) / options.groups + 2
        var recorders: [UnreadRecorder] = []
        for (index, ws) in members.enumerated() {
            let recorder = UnreadRecorder(ws, chat: chats[index / perGroup], maxCount: maxCount)
            try await recorder.install()
            try await ws.listen("/userChats/\(users[index / perGroup][index % perGroup])")
            recorders.append(recorder)
        }
        let schedule = UnreadSchedule(
            groups: options.groups,
            senders: options.senders,
            start: monotonicNanos() + 200_000_000,
            spacing: UInt64((1e9 / Double(options.rate)).rounded())
        )
        let window = MeasuredWindow(
            start: schedule.start + UInt64(warmupSeconds * 1e9),
            end: schedule.start + UInt64((warmupSeconds + seconds) * 1e9)
        )
        progress(
            "chat-unread-latency: \(options.rate) messages/s over \(options.groups) groups by \(options.senders) "
                + "sender(s), \(warmupSeconds) s warm-up + \(seconds) s"
        )
        let started = UnreadSenders(schedule: schedule, chats: chats, senderUIDs: users.map { $0[0] })
            .start(on: senders, measureFrom: window.start, deadline: window.end)
        let due = schedule.numbers(dueIn: window)
        let cpu = try await window.sampleCPU(serverPid: serverPid).stop(operations: due.count)

        // Every writer stops at the window's end; a put the server never answers does not hold it up.
        let drainEnd = monotonicNanos() + UInt64(options.drainTimeout * 1e9)
        var written = WriterResult()
        var unanswered = 0
        for (result, _) in started {
            if let r = try await value(of: result, before: drainEnd) {
                written.latencies += r.latencies
                written.acked += r.acked
                written.errors += r.errors
                written.firstError = written.firstError ?? r.firstError
            } else {
                unanswered += 1
            }
        }
        var sends: [[UnreadSend]] = Array(repeating: [], count: options.groups)
        for (k, (sender, ws)) in zip(started, senders).enumerated() {
            let log = sender.log
            let times = try await ws.eventLoop.submit { log.sentAt }.get()
            for (i, sentAt) in times.enumerated() {
                let message = schedule.message(sender: k, sequence: i)
                sends[message.group].append(UnreadSend(due: schedule.due(message.number), sentAt: sentAt))
            }
        }

        // Drain: until every member other than the sender has the count of its group's messages.
        let recorderSet = UnreadRecorders(recorders)
        while monotonicNanos() < drainEnd {
            let seen = try await recorderSet.seen()
            let behind = seen.indices.contains { $0 % perGroup != 0 && seen[$0] < sends[$0 / perGroup].count }
            if !behind { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let results = try await recorderSet.results()
        return UnreadLatencyTally(
            sends: sends,
            arrivals: results.map(\.arrivals),
            membersPerGroup: perGroup,
            window: window
        ).report(
            options: options,
            seconds: seconds,
            warmupSeconds: warmupSeconds,
            written: written,
            unanswered: unanswered,
            results: results,
            scheduledMessages: due.count,
            cpu: cpu
        )
    }
}
