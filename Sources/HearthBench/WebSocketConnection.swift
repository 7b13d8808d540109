import NIOCore
import NIOPosix

/// Monotonic nanoseconds (`CLOCK_MONOTONIC`, the same clock on every thread of the process).
@inline(__always)
func monotonicNanos() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

struct WebSocketClosedError: Error, CustomStringConvertible {
    var reason: String
    var description: String { "WebSocket closed: \(reason)" }
}

/// A lean WebSocket client for the Firebase v5 realtime protocol, written for load generation.
///
/// It is one channel handler that does the HTTP upgrade by hand and then parses WebSocket frames
/// straight out of the read buffer: no per-frame objects, no JSON parsing. A server message is only
/// classified by its first bytes (`{"t":"d","d":{"a":` is a push, `{"t":"d","d":{"r":N` a
/// response whose status is compared with `ok`); multi-frame messages (a frame holding only the
/// frame count, then the pieces) are joined first. Outgoing text frames are masked with a fixed key
/// per connection. Everything after `connect` runs on the connection's event loop.
final class WebSocketConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let eventLoop: EventLoop
    private let upgradeRequest: [UInt8]
    private let helloPromise: EventLoopPromise<Void>
    private let mask: (UInt8, UInt8, UInt8, UInt8)

    // Everything below is confined to `eventLoop`.
    private var context: ChannelHandlerContext?
    private var cumulation: ByteBuffer?
    private var upgraded = false
    private var remainingFrames = 0  // frames still to come of a multi-frame message
    private var assembly: [UInt8] = []
    private var fragments: [UInt8]?  // a WebSocket-fragmented message (continuation frames)
    private var waiters: [Int: EventLoopPromise<String>] = [:]
    private var nextRequestID = 1

    /// Data pushes (`a` = `d` or `m`) received so far.
    private(set) var pushCount = 0
    /// Set once the connection is gone (close frame, reset, error).
    private(set) var closedReason: String?

    /// Called for every data push (`{"t":"d","d":{"a":"d"|"m",...}}`) with the whole message.
    var onPush: ((UnsafeRawBufferPointer) -> Void)?
    /// Called for responses nobody awaits through `request`: request id, status is `ok`, the message.
    var onResponse: ((Int, Bool, UnsafeRawBufferPointer) -> Void)?
    /// Called once when the connection goes away.
    var onClose: ((String) -> Void)?

    private init(target: ServerTarget, eventLoop: EventLoop, maskSeed: UInt32) {
        self.eventLoop = eventLoop
        self.helloPromise = eventLoop.makePromise(of: Void.self)
        let m = maskSeed &* 2_654_435_761 | 0x0101_0101
        self.mask = (
            UInt8(m >> 24), UInt8(truncatingIfNeeded: m >> 16), UInt8(truncatingIfNeeded: m >> 8),
            UInt8(truncatingIfNeeded: m)
        )
        let ns = percentEncode(target.namespace)
        upgradeRequest = Array(
            ("GET /.ws?v=5&ns=\(ns) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n").utf8
        )
    }

    /// `count` connections over `group`'s loops, each with its own mask seed, each
    /// authenticated with `credential` before the next opens.
    static func openAuthenticated(
        _ count: Int,
        to target: ServerTarget,
        on group: EventLoopGroup,
        credential: String
    ) async throws -> [WebSocketConnection] {
        var opened: [WebSocketConnection] = []
        for index in 0..<count {
            let ws = try await connect(to: target, on: group.next(), maskSeed: UInt32(truncatingIfNeeded: index &+ 1))
            opened.append(ws)
            try await ws.authenticate(credential)
        }
        return opened
    }

    /// Connects, upgrades and waits for the server's hello.
    static func connect(
        to target: ServerTarget,
        on eventLoop: EventLoop,
        maskSeed: UInt32 = 1
    ) async throws
        -> WebSocketConnection
    {
        let handler = WebSocketConnection(target: target, eventLoop: eventLoop, maskSeed: maskSeed)
        _ = try await ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: target.host, port: target.port)
            .get()
        try await handler.helloPromise.futureResult.get()
        return handler
    }

    // MARK: Requests

    /// A fresh request id (`r`). On the event loop.
    func takeRequestID() -> Int {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    /// Sends `{"t":"d","d":{"r":N,"a":action,"b":body}}` and returns the response's status (`ok`, …).
    func request(_ action: String, body: String) async throws -> String {
        try await eventLoop.flatSubmit { () -> EventLoopFuture<String> in
            if let reason = self.closedReason {
                return self.eventLoop.makeFailedFuture(WebSocketClosedError(reason: reason))
            }
            let id = self.takeRequestID()
            let promise = self.eventLoop.makePromise(of: String.self)
            self.waiters[id] = promise
            let message = "{\"t\":\"d\",\"d\":{\"r\":\(id),\"a\":\"\(action)\",\"b\":\(body)}}"
            self.sendText(Array(message.utf8))
            return promise.futureResult
        }.get()
    }

    /// `auth` with the credential; throws unless answered `ok`.
    func authenticate(_ credential: String) async throws {
        let status = try await request("auth", body: "{\"cred\":\(jsonString(credential))}")
        guard status == "ok" else { throw BenchError("WebSocket auth answered \(status)") }
    }

    /// `q` (listen) at `path` with an empty hash; throws unless answered `ok`.
    func listen(_ path: String) async throws {
        let status = try await request("q", body: "{\"p\":\(jsonString(path)),\"h\":\"\"}")
        guard status == "ok" else { throw BenchError("WebSocket listen on \(path) answered \(status)") }
    }

    /// The number of pushes received, read on the event loop.
    func pushes() -> EventLoopFuture<Int> { eventLoop.submit { self.pushCount } }

    func close() async {
        try? await eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            guard let context = self.context, self.closedReason == nil else {
                return self.eventLoop.makeSucceededVoidFuture()
            }
            // A close frame with 1000, then the TCP close (the benchmark does not wait for the server's echo).
            self.sendFrame(opcode: 0x8, [0x03, 0xE8], flush: true)
            let promise = self.eventLoop.makePromise(of: Void.self)
            context.close(promise: promise)
            return promise.futureResult
        }.get()
    }

    // MARK: Sending

    /// Sends one text frame (masked). On the event loop.
    func sendText(_ payload: [UInt8], flush: Bool = true) {
        sendFrame(opcode: 0x1, payload, flush: flush)
    }

    func flush() { context?.flush() }

    private func sendFrame(opcode: UInt8, _ payload: [UInt8], flush: Bool) {
        guard let context, closedReason == nil else { return }
        let count = payload.count
        var out = context.channel.allocator.buffer(capacity: count + 14)
        out.writeInteger(0x80 | opcode)
        if count < 126 {
            out.writeInteger(UInt8(0x80 | count))
        } else if count < 65_536 {
            out.writeInteger(UInt8(0x80 | 126))
            out.writeInteger(UInt16(count))
        } else {
            out.writeInteger(UInt8(0x80 | 127))
            out.writeInteger(UInt64(count))
        }
        let (m0, m1, m2, m3) = mask
        out.writeInteger(m0)
        out.writeInteger(m1)
        out.writeInteger(m2)
        out.writeInteger(m3)
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { dst in
            payload.withUnsafeBufferPointer { src in
                var i = 0
                while i + 4 <= count {
                    dst[i] = src[i] ^ m0
                    dst[i + 1] = src[i + 1] ^ m1
                    dst[i + 2] = src[i + 2] ^ m2
                    dst[i + 3] = src[i + 3] ^ m3
                    i += 4
                }
                while i < count {
                    let k = i & 3
                    dst[i] = src[i] ^ (k == 0 ? m0 : k == 1 ? m1 : m2)
                    i += 1
                }
            }
            return count
        }
        if flush {
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        } else {
            context.write(wrapOutboundOut(out), promise: nil)
        }
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        var request = context.channel.allocator.buffer(capacity: upgradeRequest.count)
        request.writeBytes(upgradeRequest)
        context.writeAndFlush(wrapOutboundOut(request), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        var buffer: ByteBuffer
        if var pending = cumulation {
            cumulation = nil
            pending.writeBuffer(&incoming)
            buffer = pending
        } else {
            buffer = incoming
        }
        if !upgraded {
            guard readHandshake(&buffer, context: context) else {
                if closedReason == nil { cumulation = buffer }
                return
            }
        }
        parseFrames(&buffer)
        if buffer.readableBytes > 0 && closedReason == nil {
            if buffer.readerIndex > 65_536 { buffer.discardReadBytes() }
            cumulation = buffer
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish("the server closed the connection")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        finish("\(error)")
        context.close(promise: nil)
    }

    private func finish(_ reason: String) {
        guard closedReason == nil else { return }
        closedReason = reason
        cumulation = nil
        let error = WebSocketClosedError(reason: reason)
        helloPromise.fail(error)
        let waiting = waiters
        waiters = [:]
        for promise in waiting.values { promise.fail(error) }
        onClose?(reason)
    }

    private func fail(_ reason: String) {
        finish(reason)
        context?.close(promise: nil)
    }

    /// Consumes the HTTP response to the upgrade; false while it is incomplete or refused.
    private func readHandshake(_ buffer: inout ByteBuffer, context: ChannelHandlerContext) -> Bool {
        let end: Int? = buffer.withUnsafeReadableBytes { bytes in
            guard bytes.count >= 4 else { return nil }
            for i in 0...(bytes.count - 4)
            where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
                return i + 4
            }
            return nil
        }
        guard let end else {
            if buffer.readableBytes > 16_384 { fail("upgrade response head too large") }
            return false
        }
        let head = buffer.readString(length: end) ?? ""
        guard head.hasPrefix("HTTP/1.1 101") else {
            let statusLine = head.split(separator: "\r\n").first.map(String.init) ?? head
            fail("upgrade refused: \(statusLine)")
            return false
        }
        upgraded = true
        return true
    }

    private func parseFrames(_ buffer: inout ByteBuffer) {
        let consumed = buffer.withUnsafeReadableBytes { bytes -> Int in
            var offset = 0
            while closedReason == nil {
                let available = bytes.count - offset
                guard available >= 2 else { break }
                let b0 = bytes[offset]
                let b1 = bytes[offset + 1]
                var header = 2
                var length = Int(b1 & 0x7F)
                if length == 126 {
                    guard available >= 4 else { break }
                    length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                    header = 4
                } else if length == 127 {
                    guard available >= 10 else { break }
                    var l: UInt64 = 0
                    for i in 2..<10 { l = l << 8 | UInt64(bytes[offset + i]) }
                    guard l < 1 << 36 else {
                        fail("frame too large")
                        break
                    }
                    length = Int(l)
                    header = 10
                }
                let masked = b1 & 0x80 != 0
                if masked { header += 4 }
                guard available >= header + length else { break }
                let start = offset + header
                if masked {
                    let key = Array(bytes[(start - 4)..<start])
                    var payload = Array(bytes[start..<(start + length)])
                    for i in payload.indices { payload[i] ^= key[i & 3] }
                    payload.withUnsafeBytes { frame(fin: b0 & 0x80 != 0, opcode: b0 & 0x0F, $0) }
                } else {
                    frame(
                        fin: b0 & 0x80 != 0,
                        opcode: b0 & 0x0F,
                        UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
                    )
                }
                offset = start + length
            }
            return offset
        }
        buffer.moveReaderIndex(forwardBy: consumed)
    }

    private func frame(fin: Bool, opcode: UInt8, _ payload: UnsafeRawBufferPointer) {
        switch opcode {
        case 0x0, 0x1, 0x2:
            if fragments != nil || !fin {
                if opcode != 0 { fragments = [] }
                fragments?.append(contentsOf: payload)
                if fin, let whole = fragments {
                    fragments = nil
                    whole.withUnsafeBytes { text($0) }
                }
            } else {
                text(payload)
            }
        case 0x8:
            var reason = "close frame"
            if payload.count >= 2 {
                let code = Int(payload[0]) << 8 | Int(payload[1])
                reason = "close \(code) \(String(decoding: payload.dropFirst(2), as: UTF8.self))"
            }
            fail(reason)
        case 0x9:
            sendFrame(opcode: 0xA, Array(payload), flush: true)
        default:
            break  // pong, reserved
        }
    }

    /// One WebSocket text frame: a frame count, a piece of a multi-frame message, or a whole message.
    private func text(_ payload: UnsafeRawBufferPointer) {
        if remainingFrames > 0 {
            assembly.append(contentsOf: payload)
            remainingFrames -= 1
            if remainingFrames == 0 {
                let whole = assembly
                assembly.removeAll(keepingCapacity: true)
                whole.withUnsafeBytes { message($0) }
            }
            return
        }
        if payload.count <= 6, payload.count >= 1, payload.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            var n = 0
            for digit in payload { n = n * 10 + Int(digit - 0x30) }
            remainingFrames = n  // 0 is a keep-alive
            assembly.removeAll(keepingCapacity: true)
            return
        }
        message(payload)
    }

    // `{"t":"d","d":{"` then `a":"d"` (push) or `r":N,"b":{"s":"ok"` (response)
    private static let dataPrefix: [UInt8] = Array(#"{"t":"d","d":{""#.utf8)
    private static let okStatus: [UInt8] = Array(#","b":{"s":"ok""#.utf8)
    private static let helloPrefix: [UInt8] = Array(#"{"t":"c","d":{"t":"h""#.utf8)

    /// One whole server message: classified by its first bytes only.
    private func message(_ m: UnsafeRawBufferPointer) {
        let p = Self.dataPrefix
        var isData = m.count > 20
        if isData {
            for j in 0..<p.count where m[j] != p[j] {
                isData = false
                break
            }
        }
        if isData {
            // {"t":"d","d":{"a":"d"  — byte 15 is the key, byte 19 the action.
            if m[15] == UInt8(ascii: "a") {
                let action = m[19]
                if action == UInt8(ascii: "d") || action == UInt8(ascii: "m"), m[20] == UInt8(ascii: "\"") {
                    pushCount += 1
                    onPush?(m)
                }
                return
            }
            if m[15] == UInt8(ascii: "r") {
                var i = 18
                var id = 0
                while i < m.count, m[i] >= 0x30, m[i] <= 0x39 {
                    id = id * 10 + Int(m[i] - 0x30)
                    i += 1
                }
                let ok = Self.okStatus
                var isOK = m.count >= i + ok.count
                if isOK {
                    for j in 0..<ok.count where m[i + j] != ok[j] {
                        isOK = false
                        break
                    }
                }
                if let waiter = waiters.removeValue(forKey: id) {
                    waiter.succeed(isOK ? "ok" : Self.status(of: m))
                } else {
                    onResponse?(id, isOK, m)
                }
                return
            }
            return
        }
        if m.starts(with: Self.helloPrefix) {
            helloPromise.succeed(())
        }
    }

    /// The `s` of a response, or its first bytes when it has none.
    static func status(of m: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: m.prefix(300), as: UTF8.self)
        guard let range = text.range(of: #""s":""#) else { return text }
        let rest = text[range.upperBound...]
        let status = rest.prefix { $0 != "\"" }
        return status == "ok" ? "ok" : String(text)
    }
}

/// Closes the connections, 256 at a time.
func closeAll(_ connections: [WebSocketConnection]) async {
    await withTaskGroup(of: Void.self) { tasks in
        for (i, ws) in connections.enumerated() {
            tasks.addTask { await ws.close() }
            if i % 256 == 255 { await tasks.waitForAll() }
        }
    }
}

/// A JSON string literal (quotes, backslashes and control characters escaped).
func jsonString(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

/// Appends the decimal digits of a non-negative integer (no String allocation).
@inline(__always)
func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    if value < 10 {
        out.append(0x30 &+ UInt8(truncatingIfNeeded: value))
        return
    }
    var digits:
        (
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
        ) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var v = value
    var n = 0
    withUnsafeMutableBytes(of: &digits) { d in
        while v > 0 {
            d[n] = 0x30 &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
            n += 1
        }
        while n > 0 {
            n -= 1
            out.append(d[n])
        }
    }
}

/// Parses the non-negative integer that follows `key` (e.g. `"w":`) in `m`, searching from `from`.
func integer(after key: [UInt8], in m: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
    let k = key.count
    guard m.count >= k, from <= m.count - k else { return nil }
    var i = from
    let first = key[0]
    outer: while i <= m.count - k {
        if m[i] != first {
            i += 1
            continue
        }
        for j in 1..<k where m[i + j] != key[j] {
            i += 1
            continue outer
        }
        var j = i + k
        var value = 0
        var any = false
        while j < m.count, m[j] >= 0x30, m[j] <= 0x39 {
            value = value * 10 + Int(m[j] - 0x30)
            j += 1
            any = true
        }
        return any ? value : nil
    }
    return nil
}
