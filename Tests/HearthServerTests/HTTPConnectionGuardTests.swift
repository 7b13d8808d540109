import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import HearthServer

/// `HTTPConnectionGuard` in a pipeline like the server's (`RequestLineGuard`, NIO's parser and
/// encoder) on an `EmbeddedChannel`, whose loop's time the test moves: each timeout closes the
/// connection exactly when it passes, not a nanosecond before, and what the client or the
/// server does meanwhile moves it. (`HTTPConnectionStateTests` checks the decisions alone.)
struct HTTPConnectionGuardTests {
    static let limits = HTTPConnectionState.Limits(
        headerTimeout: .seconds(30),
        idleTimeout: .seconds(75),
        lingerTimeout: .seconds(2),
        maxRequestLineBytes: 1000,
        maxHeaderBytes: 4000
    )

    /// An open connection at time zero of its loop.
    static func connection(_ limits: HTTPConnectionState.Limits = limits) throws -> EmbeddedChannel {
        let loop = EmbeddedEventLoop()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let connectionGuard = HTTPConnectionGuard(limits: limits, logger: logger, now: loop.now)
        let channel = EmbeddedChannel(loop: loop)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(RequestLineGuard(reportingTo: connectionGuard))
        try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
        try pipeline.addHandler(HTTPResponseEncoder())
        try pipeline.addHandler(connectionGuard)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static func send(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    /// The request parts that reached the server past the guard.
    static func received(_ channel: EmbeddedChannel) throws -> [String] {
        var parts: [String] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let head): parts.append("head \(head.method) \(head.uri)")
            case .body(let body): parts.append("body \(body.readableBytes)")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    /// What the connection wrote, as text.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            text += buffer.readString(length: buffer.readableBytes) ?? ""
        }
        return text
    }

    /// The server answers the request it received, as Hummingbird would.
    static func respond(to channel: EmbeddedChannel, body: String = "ok") throws {
        var head = HTTPResponseHead(version: .http1_1, status: .ok)
        head.headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
    }

    static let get = "GET /a.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test func aSilentConnectionIsClosedAtTheHeaderTimeoutWithoutAnAnswer() throws {
        let channel = try Self.connection()
        channel.embeddedEventLoop.advanceTime(by: .seconds(30) - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
        #expect(try Self.written(channel).isEmpty, "nothing is sent to a connection that sent nothing")
    }

    @Test func aHeadStillIncompleteAtTheHeaderTimeoutIsAnswered408() throws {
        let channel = try Self.connection()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        try Self.send("GET /a.json HTTP/1.1\r\nHost: 127.0.0.1\r\n", to: channel)
        // More header bytes do not move the deadline: the whole head is due 30 s after its first byte.
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        try Self.send("X-Slow: 1\r\n", to: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1) - .nanoseconds(1))
        #expect(channel.isActive)
        #expect(try Self.written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        let answer = try Self.written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(answer)")
        #expect(answer.lowercased().contains("connection: close"))
        #expect(!channel.isActive)
        #expect(try Self.received(channel).isEmpty)
    }

    @Test func anIdleKeepAliveConnectionIsClosedAtTheIdleTimeoutAfterItsLastAnswer() throws {
        let channel = try Self.connection()
        let loop = channel.embeddedEventLoop
        loop.advanceTime(by: .seconds(1))
        try Self.send(Self.get, to: channel)
        #expect(try Self.received(channel) == ["head GET /a.json", "end"])
        // No deadline while the server works on a request.
        loop.advanceTime(by: .hours(1))
        #expect(channel.isActive)
        try Self.respond(to: channel)
        #expect(try Self.written(channel).hasPrefix("HTTP/1.1 200 OK\r\n"))
        // A new request 74 s later moves the deadline on: the idle timeout counts from its answer.
        loop.advanceTime(by: .seconds(74))
        try Self.send(Self.get, to: channel)
        #expect(try Self.received(channel) == ["head GET /a.json", "end"])
        loop.advanceTime(by: .seconds(5))
        try Self.respond(to: channel)
        loop.advanceTime(by: .seconds(75) - .nanoseconds(1))
        #expect(channel.isActive)
        loop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    @Test func aBodyThatPausesForTheIdleTimeoutIsClosedAndItsReaderSeesAnError() throws {
        var limits = Self.limits
        limits.minBodyBytesPerSecond = nil
        let channel = try Self.connection(limits)
        let loop = channel.embeddedEventLoop
        try Self.send("PUT /a.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n12", to: channel)
        #expect(try Self.received(channel) == ["head PUT /a.json", "body 2"])
        // Each part of the body gives the next pause the whole idle timeout.
        loop.advanceTime(by: .seconds(70))
        try Self.send("34", to: channel)
        loop.advanceTime(by: .seconds(75) - .nanoseconds(1))
        #expect(channel.isActive)
        loop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
        #expect(try Self.received(channel) == ["body 2"], "the body did not end")
        #expect(throws: HTTPParserError.invalidEOFState) { try channel.throwIfErrorCaught() }
    }

    /// An event stream: a response whose end never comes (the server works on its request), so
    /// the connection has no deadline however long it stays quiet.
    @Test func aResponseUnderWayHasNoDeadline() throws {
        let channel = try Self.connection()
        let loop = channel.embeddedEventLoop
        try Self.send("GET /a.json HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n", to: channel)
        var head = HTTPResponseHead(version: .http1_1, status: .ok)
        head.headers.add(name: "Content-Type", value: "text/event-stream")
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        for _ in 0..<10 {
            loop.advanceTime(by: .seconds(60))
            try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: ": keep-alive\n\n"))))
        }
        loop.advanceTime(by: .hours(24))
        #expect(channel.isActive)
        // Once it ends, the connection is an idle keep-alive one.
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        loop.advanceTime(by: .seconds(75))
        #expect(!channel.isActive)
    }
}
