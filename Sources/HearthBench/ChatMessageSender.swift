import ArgumentParser
import NIOCore

/// Sends chat messages (only the message: the server derives the counters) into one chat
/// over several connections, one message in flight each, for `chat-messages`.
struct ChatMessageSender {
    var target: ServerTarget
    var group: EventLoopGroup
    var connections: Int
    var window: MeasuredWindow
    var serverPid: Int?

    struct Measured {
        var latencies: [UInt32]
        var acked: Int
        var errors: Int
        var firstError: String?
        var cpu: CPUWindow
    }

    /// `POST /messages/<chat>.json`: the server names each message with a push id.
    func overREST(chat: String) async throws -> Measured {
        var opened: [HTTPConnection] = []
        for _ in 0..<connections {
            opened.append(try await HTTPConnection.connect(to: target, on: group.next()))
        }
        let body = Array(ChatMessagesScenario.message.utf8)
        let request =
            Array(
                "POST /messages/\(chat).json?\(target.baseQuery) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                    .utf8
            ) + body
        var futures: [EventLoopFuture<LoopResult>] = []
        for connection in opened {
            let loop = ClosedLoop(
                connection: connection,
                measureFrom: NIODeadline.uptimeNanoseconds(window.start),
                deadline: NIODeadline.uptimeNanoseconds(window.end)
            ) { _, allocator in
                var buffer = allocator.buffer(capacity: request.count)
                buffer.writeBytes(request)
                return buffer
            }
            futures.append(loop.run())
        }
        let cpu = try await window.sampleCPU(serverPid: serverPid)
        let merged = try await LoopResult.merged(futures)
        for connection in opened { await connection.close() }
        return Measured(
            latencies: merged.latencies,
            acked: merged.succeeded,
            errors: merged.errors,
            firstError: merged.firstError,
            cpu: cpu.stop(operations: merged.latencies.count)
        )
    }

    /// `p` of `/messages/<chat>/s<sequence, 9 digits>c<connection>`.
    func overWebSocket(chat: String) async throws -> Measured {
        guard let credential = target.adminSecret else {
            throw ValidationError("chat-messages over ws needs --admin-secret")
        }
        let opened = try await WebSocketConnection.openAuthenticated(
            connections,
            to: target,
            on: group,
            credential: credential
        )
        let requestHead = Array(#"{"t":"d","d":{"r":"#.utf8)
        let putHead = Array(#","a":"p","b":{"p":"/messages/\#(chat)/s"#.utf8)
        let putTail = Array(#"","d":\#(ChatMessagesScenario.message)}}}"#.utf8)
        var futures: [EventLoopFuture<WriterResult>] = []
        for (index, ws) in opened.enumerated() {
            let connectionMark = Array("c\(index)".utf8)
            let writer = WebSocketWriter(
                connection: ws,
                mode: .closedLoop(window: 1),
                measureFrom: window.start,
                deadline: window.end
            ) { out, id, sequence, _ in
                out.append(contentsOf: requestHead)
                appendDecimal(id, to: &out)
                out.append(contentsOf: putHead)
                let digits = String(sequence)
                out.append(contentsOf: Array(repeating: UInt8(ascii: "0"), count: max(0, 9 - digits.utf8.count)))
                out.append(contentsOf: digits.utf8)
                out.append(contentsOf: connectionMark)
                out.append(contentsOf: putTail)
            }
            futures.append(writer.run())
        }
        let cpu = try await window.sampleCPU(serverPid: serverPid)
        var measured = Measured(latencies: [], acked: 0, errors: 0, firstError: nil, cpu: CPUWindow())
        for future in futures {
            let result = try await future.get()
            measured.latencies += result.latencies
            measured.acked += result.acked
            measured.errors += result.errors
            measured.firstError = measured.firstError ?? result.firstError
        }
        for ws in opened { await ws.close() }
        measured.cpu = cpu.stop(operations: measured.latencies.count)
        return measured
    }
}
