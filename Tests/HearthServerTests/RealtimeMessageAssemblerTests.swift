import HearthProtocol
import NIOCore
import NIOWebSocket
import Testing

@testable import HearthServer

/// Inbound data frames → whole messages (RFC 6455 §5.4 fragmentation, client frames masked).
struct RealtimeMessageAssemblerTests {
    static let key = WebSocketMaskingKey([0x11, 0x22, 0x33, 0x44])!

    /// A client frame: `text` masked with `key` (as a client sends it).
    static func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool) -> WebSocketFrame {
        var bytes = Array(text.utf8)
        for index in bytes.indices { bytes[index] ^= key[index & 3] }
        return WebSocketFrame(fin: fin, opcode: opcode, maskKey: key, data: ByteBuffer(bytes: bytes))
    }

    static func text(of outcome: RealtimeMessageAssembler.Outcome) -> String? {
        if case .message(let bytes) = outcome { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    static func failure(of outcome: RealtimeMessageAssembler.Outcome) -> CloseCode? {
        if case .failure(let code, _) = outcome { return code }
        return nil
    }

    static func isPending(_ outcome: RealtimeMessageAssembler.Outcome) -> Bool {
        if case .pending = outcome { return true }
        return false
    }

    let allocator = ByteBufferAllocator()

    @Test func aSingleFrameIsOneUnmaskedMessage() {
        var assembler = RealtimeMessageAssembler(maxMessageBytes: 100)
        let outcome = assembler.receive(Self.frame(.text, #"{"t":"d"}"#, fin: true), allocator: allocator)
        #expect(Self.text(of: outcome) == #"{"t":"d"}"#)
    }

    @Test(arguments: 0...20)
    func unmaskingMatchesTheBytewiseDefinition(length: Int) {
        // Lengths around the 8-byte word boundary: whole words, then a tail.
        let plain = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 5) }
        var masked = plain
        for index in masked.indices { masked[index] ^= Self.key[index & 3] }
        RealtimeMessageAssembler.unmask(&masked, key: (0x11, 0x22, 0x33, 0x44))
        #expect(masked == plain)
    }

    @Test func fragmentsAreJoinedWhenTheLastArrives() {
        var assembler = RealtimeMessageAssembler(maxMessageBytes: 100)
        #expect(Self.isPending(assembler.receive(Self.frame(.text, "hel", fin: false), allocator: allocator)))
        #expect(Self.isPending(assembler.receive(Self.frame(.continuation, "lo, ", fin: false), allocator: allocator)))
        let last = assembler.receive(Self.frame(.continuation, "world", fin: true), allocator: allocator)
        #expect(Self.text(of: last) == "hello, world")
        // The next message starts afresh.
        #expect(Self.text(of: assembler.receive(Self.frame(.text, "next", fin: true), allocator: allocator)) == "next")
    }

    @Test func aContinuationWithoutAMessageIsAProtocolError() {
        var assembler = RealtimeMessageAssembler(maxMessageBytes: 100)
        let outcome = assembler.receive(Self.frame(.continuation, "x", fin: true), allocator: allocator)
        #expect(Self.failure(of: outcome) == .protocolError)
    }

    @Test func aNewMessageBeforeTheLastFragmentIsAProtocolError() {
        var assembler = RealtimeMessageAssembler(maxMessageBytes: 100)
        _ = assembler.receive(Self.frame(.text, "part", fin: false), allocator: allocator)
        let outcome = assembler.receive(Self.frame(.text, "other", fin: true), allocator: allocator)
        #expect(Self.failure(of: outcome) == .protocolError)
    }

    @Test func fragmentsOverTheLimitAreTooBig() {
        var assembler = RealtimeMessageAssembler(maxMessageBytes: 8)
        #expect(Self.isPending(assembler.receive(Self.frame(.text, "12345", fin: false), allocator: allocator)))
        let outcome = assembler.receive(Self.frame(.continuation, "6789", fin: true), allocator: allocator)
        #expect(Self.failure(of: outcome) == .messageTooBig)
        // Exactly at the limit is accepted.
        var exact = RealtimeMessageAssembler(maxMessageBytes: 8)
        _ = exact.receive(Self.frame(.text, "1234", fin: false), allocator: allocator)
        #expect(
            Self.text(of: exact.receive(Self.frame(.continuation, "5678", fin: true), allocator: allocator))
                == "12345678"
        )
    }

    @Test func resetForgetsAMessageInProgress() {
        var assembler = RealtimeMessageAssembler(maxMessageBytes: 100)
        _ = assembler.receive(Self.frame(.text, "part", fin: false), allocator: allocator)
        assembler.reset()
        #expect(
            Self.failure(of: assembler.receive(Self.frame(.continuation, "x", fin: true), allocator: allocator))
                == .protocolError
        )
    }
}
