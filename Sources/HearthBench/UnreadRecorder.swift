import NIOCore

/// One member's connection in `chat-unread-latency`: it listens on the member's chat list
/// (`userChats/<uid>`) and notes when each `unread` count of its group's chat first arrives.
///
/// The k-th message into the chat makes the count k (the group is seeded with 0 and only this
/// run writes into it), so `arrivals[k - 1]` is when the member learned of message k. An update
/// that raises the count by more than one (several messages in one push) is the arrival of all
/// of them, and is counted in `jumps`. Everything after `install` runs on the connection's loop.
final class UnreadRecorder: @unchecked Sendable {
    let ws: WebSocketConnection
    private let chat: [UInt8]
    private let maxCount: Int

    // Confined to ws.eventLoop.
    private var arrivals: [UInt64] = []
    private var jumps = 0
    private var beyond = 0

    struct Result: Sendable {
        /// `arrivals[k - 1]`: monotonic nanoseconds at which `unread` ≥ k first arrived.
        var arrivals: [UInt64]
        /// Pushes that raised the count by more than one.
        var jumps: Int
        /// Pushes with a count above any this run can make (a stale or foreign chat).
        var beyond: Int
        var closedReason: String?
    }

    /// `maxCount` bounds the counts it records: more messages than that cannot go into the chat.
    init(_ ws: WebSocketConnection, chat: String, maxCount: Int) {
        self.ws = ws
        self.chat = Array(chat.utf8)
        self.maxCount = maxCount
        arrivals.reserveCapacity(min(maxCount, 1 << 16))
    }

    /// Starts recording the connection's pushes.
    func install() async throws {
        try await ws.eventLoop.submit {
            self.ws.onPush = { [unowned self] m in self.push(m) }
        }.get()
    }

    /// The number of counts seen so far. On the connection's loop.
    var seen: Int { arrivals.count }

    /// Stops recording and hands over what it saw.
    func result() async throws -> Result {
        try await ws.eventLoop.submit {
            self.ws.onPush = nil
            return Result(
                arrivals: self.arrivals,
                jumps: self.jumps,
                beyond: self.beyond,
                closedReason: self.ws.closedReason
            )
        }.get()
    }

    private func push(_ m: UnsafeRawBufferPointer) {
        let now = monotonicNanos()
        guard let count = Self.unread(in: m), count > arrivals.count, containsBytes(chat, in: m) else { return }
        guard count <= maxCount else {
            beyond += 1
            return
        }
        if count > arrivals.count + 1 { jumps += 1 }
        while arrivals.count < count { arrivals.append(now) }
    }

    // `…/<chat>","d":{"unread":3,…}` (the entry), `"<chat>/unread":3` (a merge at the list) or
    // `…/<chat>/unread","d":3` (the leaf).
    private static let unreadKey = Array(#"unread":"#.utf8)
    private static let unreadLeaf = Array(#"/unread","d":"#.utf8)

    /// The `unread` count a push carries, if any.
    static func unread(in m: UnsafeRawBufferPointer) -> Int? {
        integer(after: unreadKey, in: m, from: 20) ?? integer(after: unreadLeaf, in: m, from: 20)
    }
}

/// Whether `needle` occurs in `haystack`.
func containsBytes(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
    let n = needle.count
    guard n > 0, haystack.count >= n else { return n == 0 }
    let first = needle[0]
    var i = 0
    outer: while i <= haystack.count - n {
        if haystack[i] != first {
            i += 1
            continue
        }
        for j in 1..<n where haystack[i + j] != needle[j] {
            i += 1
            continue outer
        }
        return true
    }
    return false
}

/// Recorders grouped by event loop, so that reading their progress takes one hop per loop.
struct UnreadRecorders: Sendable {
    let all: [UnreadRecorder]
    private let byLoop: [(EventLoop, [Int])]

    init(_ recorders: [UnreadRecorder]) {
        all = recorders
        var groups: [ObjectIdentifier: (EventLoop, [Int])] = [:]
        for (index, recorder) in recorders.enumerated() {
            let loop = recorder.ws.eventLoop
            groups[ObjectIdentifier(loop), default: (loop, [])].1.append(index)
        }
        byLoop = Array(groups.values)
    }

    /// Each recorder's `seen`, in order.
    func seen() async throws -> [Int] {
        var counts = [Int](repeating: 0, count: all.count)
        for (loop, indices) in byLoop {
            let recorders = all
            let found = try await loop.submit { indices.map { recorders[$0].seen } }.get()
            for (index, count) in zip(indices, found) { counts[index] = count }
        }
        return counts
    }

    /// Every recorder's result, in order.
    func results() async throws -> [UnreadRecorder.Result] {
        var results: [UnreadRecorder.Result] = []
        for recorder in all { results.append(try await recorder.result()) }
        return results
    }
}
