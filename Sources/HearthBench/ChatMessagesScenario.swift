import ArgumentParser
import Foundation
import NIOCore

/// `chat-messages`: messages posted into one group whose members' counters the server's chat
/// app derives (its message trigger, in the message's own batch), by `--fanout-connections`
/// closed loops over REST (`POST /messages/<chat>`) or WebSocket (`p`), for each of `--members`
/// and `--fanout-via`. The server must run the chat app in `--ns` (`hearth serve --chat-ns bench`);
/// the client sends only the message. Each run seeds a fresh group (`chats`, `members`,
/// `userChats` entries) and checks at the end that the counters count every acknowledged message.
struct ChatMessagesScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var options: FanoutWriteOptions
    var seconds: Double
    var warmupSeconds: Double
    var serverPid: Int?

    static let message = ChatGroupSeed.message(from: FanoutWriteBody.user(0))

    func run() async throws -> ChatMessagesReport {
        var runs: [ChatMessagesRun] = []
        for members in try options.memberCounts() {
            for transport in try options.transports() {
                runs.append(try await run(transport, members: members))
            }
        }
        return ChatMessagesReport(runs: runs)
    }

    private func run(_ transport: FanoutWriteTransport, members: Int) async throws -> ChatMessagesRun {
        let chat = "bench-" + PushIDGenerator.fresh()
        let totalBefore = try await seed(chat, members: members)
        progress(
            "chat-messages: \(transport.rawValue), \(members) members in chat \(chat) of ns \(target.namespace), "
                + "\(options.fanoutConnections) connection(s), \(warmupSeconds) s warm-up + \(seconds) s"
        )
        let sender = ChatMessageSender(
            target: target,
            group: group,
            connections: options.fanoutConnections,
            window: MeasuredWindow(warmupSeconds: warmupSeconds, seconds: seconds),
            serverPid: serverPid
        )
        let measured =
            transport == .rest
            ? try await sender.overREST(chat: chat) : try await sender.overWebSocket(chat: chat)
        let verification = try await verify(chat, members: members, acked: measured.acked, totalBefore: totalBefore)
        let latencies = measured.latencies.sorted()
        return ChatMessagesRun(
            transport: transport,
            members: members,
            connections: options.fanoutConnections,
            chat: chat,
            seconds: seconds,
            messages: latencies.count,
            messagesPerS: (Double(latencies.count) / seconds).rounded(),
            p50Ms: r3(percentile(latencies, 50) / 1000),
            p99Ms: r3(percentile(latencies, 99) / 1000),
            maxMs: r3(Double(latencies.last ?? 0) / 1000),
            acked: measured.acked,
            errors: measured.errors,
            firstError: measured.firstError,
            verified: verification == nil,
            disagreement: verification,
            cpu: measured.cpu
        )
    }

    /// Creates the group `chat` of `u000` (owner) … `u<members-1>`, each with an entry in their
    /// chat list, in one update; answers `unreadTotals/u001` before the run.
    private func seed(_ chat: String, members: Int) async throws -> Int {
        let seed = ChatGroupSeed(chat: chat, users: (0..<members).map(FanoutWriteBody.user))
        return try await withConnection(to: target, on: group.next()) { connection in
            try await seed.write(over: connection, to: target)
            let total = try await connection.send(RequestBuilder("GET", "/unreadTotals/u001", target: target))
            try total.expectSuccess("GET /unreadTotals/u001")
            return Int(total.bodyText) ?? 0
        }
    }

    /// Nil when every counter counts the `acked` messages: `u001`'s and the last member's unread,
    /// the sender's unread 0, `u001`'s total grown by `acked`, `lastMessage` the newest message;
    /// else what disagrees.
    private func verify(_ chat: String, members: Int, acked: Int, totalBefore: Int) async throws -> String? {
        try await withConnection(to: target, on: group.next()) { connection in
            func get(_ path: String, _ query: [String] = []) async throws -> String {
                let reply = try await connection.send(RequestBuilder("GET", path, query: query, target: target))
                try reply.expectSuccess("GET \(path)")
                return reply.bodyText
            }
            let last = FanoutWriteBody.user(members - 1)
            var expected = [
                ("/userChats/u001/\(chat)/unread", String(acked)),
                ("/userChats/\(last)/\(chat)/unread", String(acked)),
                ("/userChats/u000/\(chat)/unread", "0"),
                ("/unreadTotals/u001", String(totalBefore + acked)),
            ]
            let newest = try await get("/messages/\(chat)", ["orderBy=%22%24key%22", "limitToLast=1"])
            let newestID = (try? JSONSerialization.jsonObject(with: Data(newest.utf8)) as? [String: Any])?.keys.first
            expected.append(("/chats/\(chat)/lastMessage/id", newestID.map { #""\#($0)""# } ?? "null"))
            for (path, value) in expected {
                let found = try await get(path)
                if found != value { return "\(path) is \(found), not \(value)" }
            }
            return nil
        }
    }
}

struct ChatMessagesReport: Encodable, Sendable {
    var runs: [ChatMessagesRun]
}

struct ChatMessagesRun: Encodable, Sendable {
    var transport: FanoutWriteTransport
    var members: Int
    var connections: Int
    /// The group written: `bench-<push id of the run>`.
    var chat: String
    var seconds: Double
    /// Messages sent in the measured window and acknowledged, and per second.
    var messages: Int
    var messagesPerS: Double
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    /// Acknowledged messages over the whole run, warm-up included.
    var acked: Int
    var errors: Int
    var firstError: String?
    /// Every checked counter counts `acked` messages (`disagreement` says what did not).
    var verified: Bool
    var disagreement: String?
    /// CPU of the benchmark and (with `--server-pid`) the server in the window; per message.
    var cpu: CPUWindow
}

/// The printed object with the `chat_messages` entry.
struct BenchOutputWithChatMessages: Encodable {
    var output: BenchOutputWithFanoutWrite
    var chatMessages: ChatMessagesReport?

    private enum Keys: String, CodingKey {
        case chatMessages = "chat_messages"
    }

    func encode(to encoder: Encoder) throws {
        try output.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(chatMessages, forKey: .chatMessages)
    }
}
