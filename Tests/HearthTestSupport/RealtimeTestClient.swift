import Foundation
import HummingbirdWSClient
import Logging

/// A minimal Firebase realtime (v5) client over a real WebSocket, for tests: sends requests as
/// frames, collects every message the server sends (reassembling multi-frame messages), and
/// lets a test wait for the response to a request or for the next push.
public final class RealtimeTestClient: Sendable {
    public enum Command: Sendable {
        case text(String)
        case close
    }

    private struct State {
        var pendingFrames: (count: Int, parts: [String])?
        var closeCode: Int?
        var nextRequest = 0
    }

    private let state = Locked(State())
    /// Every whole message the server sent, in order; finished when the connection ended.
    private let inbox = AsyncInbox<String>()
    private let commands: AsyncStream<Command>.Continuation
    private let task: Task<Void, Never>

    /// Opens `ws://127.0.0.1:port/.ws?v=5&ns=...` (or `query` verbatim).
    public static func connect(
        port: Int,
        ns: String? = nil,
        query: String? = nil,
        readHello: Bool = true
    ) async throws -> RealtimeTestClient {
        let target = query ?? ("v=5" + (ns.map { "&ns=\($0)" } ?? ""))
        let client = RealtimeTestClient(url: "ws://127.0.0.1:\(port)/.ws?\(target)")
        // The hello proves the upgrade worked.
        if readHello { _ = try await client.nextMessage(timeout: .seconds(10)) }
        return client
    }

    /// Authenticates with the admin secret and expects `ok`.
    public func authenticateAsAdmin() async throws {
        let id = request("auth", #"{"cred":"\#(TestServer.adminSecret)"}"#)
        let reply = try await response(to: id)
        guard reply.body["s"] as? String == "ok" else { throw TestFailure("admin auth failed: \(reply.body)") }
    }

    private init(url: String) {
        let (commandStream, commands) = AsyncStream.makeStream(of: Command.self)
        self.commands = commands
        let state = self.state
        let inbox = self.inbox
        var logger = Logger(label: "hearth.test.ws")
        logger.logLevel = .critical
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 32 << 20
        task = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: url,
                    configuration: configuration,
                    logger: logger
                ) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: 64 << 20) {
                                guard case .text(let text) = message else { continue }
                                RealtimeTestClient.receive(text, into: state, inbox: inbox)
                            }
                        }
                        group.addTask {
                            for await command in commandStream {
                                switch command {
                                case .text(let text): try await outbound.write(.text(text))
                                case .close:
                                    try await outbound.close(.normalClosure, reason: nil)
                                    return
                                }
                            }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
                state.withLock { $0.closeCode = close.map { RealtimeTestClient.number($0) } }
            } catch {}
            inbox.finish()
        }
    }

    public static func number(_ code: WebSocketCloseFrame) -> Int {
        switch code.closeCode {
        case .normalClosure: return 1000
        case .goingAway: return 1001
        case .protocolError: return 1002
        case .unacceptableData: return 1003
        case .dataInconsistentWithMessage: return 1007
        case .policyViolation: return 1008
        case .messageTooLarge: return 1009
        case .missingExtension: return 1010
        case .unexpectedServerError: return 1011
        case .unknown(let n): return Int(n)
        }
    }

    private static func receive(_ text: String, into state: Locked<State>, inbox: AsyncInbox<String>) {
        let whole = state.withLock { state -> String? in
            if var pending = state.pendingFrames {
                pending.parts.append(text)
                if pending.parts.count == pending.count {
                    state.pendingFrames = nil
                    return pending.parts.joined()
                }
                state.pendingFrames = pending
                return nil
            } else if (1...6).contains(text.count), text.allSatisfy(\.isASCII), let count = Int(text) {
                state.pendingFrames = (count, [])
                return nil
            }
            return text
        }
        if let whole { inbox.append(whole) }
    }

    /// Sends one raw text frame.
    public func send(_ text: String) {
        commands.yield(.text(text))
    }

    /// Sends request `{"t":"d","d":{"r":N,"a":action,"b":body}}`; returns N.
    @discardableResult
    public func request(_ action: String, _ body: String) -> Int {
        let id = state.withLock { state -> Int in
            state.nextRequest += 1
            return state.nextRequest
        }
        send(#"{"t":"d","d":{"r":\#(id),"a":"\#(action)","b":\#(body)}}"#)
        return id
    }

    /// Closes the WebSocket cleanly.
    public func close() async {
        commands.yield(.close)
        commands.finish()
        _ = await task.value
    }

    /// True once the connection has ended; `closeCode` is the server's close code, if any.
    public var isEnded: Bool { inbox.isFinished }
    public var closeCode: Int? { state.withLock { $0.closeCode } }

    /// Waits until the connection ends.
    public func waitUntilEnded(timeout: Duration = .seconds(10)) async throws {
        do {
            try await inbox.waitUntilFinished(timeout: timeout)
        } catch is ConditionTimeout {
            throw TestFailure("the WebSocket did not end")
        }
    }

    /// The next message (text) the server sent, in order.
    public func nextMessage(timeout: Duration = .seconds(10)) async throws -> String {
        let message: String?
        do {
            message = try await inbox.next(timeout: timeout)
        } catch is ConditionTimeout {
            throw TestFailure("no message within \(timeout)")
        }
        guard let message else { throw TestFailure("the WebSocket ended while a message was awaited") }
        return message
    }

    /// The next message as a JSON object.
    public func nextJSON(timeout: Duration = .seconds(10)) async throws -> [String: Any] {
        let text = try await nextMessage(timeout: timeout)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(text)")
        }
        return object
    }

    /// Messages up to and including the response to request `id`; returns (pushes before it,
    /// the response body `b`).
    public func response(
        to id: Int,
        timeout: Duration = .seconds(10)
    ) async throws -> (
        pushes: [[String: Any]], body: [String: Any]
    ) {
        var pushes: [[String: Any]] = []
        while true {
            let message = try await nextJSON(timeout: timeout)
            guard let data = message["d"] as? [String: Any] else { continue }
            if let r = data["r"] as? Int, r == id, let body = data["b"] as? [String: Any] {
                return (pushes, body)
            }
            if data["a"] != nil { pushes.append(data) }
        }
    }

    /// The next data push (`{"a":…,"b":…}`), skipping other messages.
    public func nextPush(timeout: Duration = .seconds(10)) async throws -> [String: Any] {
        while true {
            let message = try await nextJSON(timeout: timeout)
            if let data = message["d"] as? [String: Any], data["a"] != nil { return data }
        }
    }

    /// Waits for the answer to request `id` (returns its body `b`) and fails if any message
    /// but those `expected` accepts (given the message's `d`) came first. The server answers a
    /// connection's requests in order, each after everything it sent the connection before, so
    /// this is a fence for what the connection's earlier frames would have made the server
    /// send; for pushes of other writes, use `expectNoPushesBeforeFence(at:)`.
    @discardableResult
    public func expectNothingBefore(
        answerTo id: Int,
        except expected: ([String: Any]) -> Bool = { _ in false }
    ) async throws -> [String: Any] {
        while true {
            let message = try await nextJSON()
            let data = message["d"] as? [String: Any]
            if let data, data["r"] as? Int == id, let body = data["b"] as? [String: Any] { return body }
            if let data, expected(data) { continue }
            throw TestFailure("unexpected message before the answer to request \(id): \(message)")
        }
    }

    /// A fence for pushes: fails if this connection was sent anything (but data at `path`)
    /// before the answer to a write at `path`, made after every commit that finished before
    /// the call (a REST write that returned, a realtime write that was answered). It listens
    /// at `path`, writes `value` there and stops listening. The server sends the answer to a
    /// committed write of a connection that listens behind the pushes of every commit the
    /// namespace's delivery queue held before it (`NamespaceEngine.afterDeliveries`; a loop's
    /// `RealtimeLoopInbox` keeps each connection's order), so what those commits would send
    /// this connection has arrived by then. The client must be allowed to read and write `path`.
    public func expectNoPushesBeforeFence(at path: String, value: String = "true") async throws {
        let bare = path.hasPrefix("/") ? String(path.dropFirst()) : path
        let atFence = { (data: [String: Any]) -> Bool in
            guard data["a"] as? String == "d" || data["a"] as? String == "m",
                let pushed = (data["b"] as? [String: Any])?["p"] as? String
            else { return false }
            let trimmed = pushed.hasPrefix("/") ? String(pushed.dropFirst()) : pushed
            return trimmed == bare || trimmed.hasPrefix(bare + "/")
        }
        let listen = try await expectNothingBefore(answerTo: request("q", #"{"p":"\#(path)","h":""}"#), except: atFence)
        guard listen["s"] as? String == "ok" else { throw TestFailure("the fence's listen was refused: \(listen)") }
        let write = try await expectNothingBefore(
            answerTo: request("p", #"{"p":"\#(path)","d":\#(value)}"#),
            except: atFence
        )
        guard write["s"] as? String == "ok" else { throw TestFailure("the fence's write was refused: \(write)") }
        // Past the fence: what arrives now is not the fence's business.
        let unlisten = try await response(to: request("n", #"{"p":"\#(path)"}"#)).body
        guard unlisten["s"] as? String == "ok" else { throw TestFailure("the fence's unlisten failed: \(unlisten)") }
    }

    deinit {
        commands.finish()
        task.cancel()
    }
}
