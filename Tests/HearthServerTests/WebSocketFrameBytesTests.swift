import NIOCore
import Testing

@testable import HearthServer

/// The server's own WebSocket frame encoding (header and payload in one buffer).
struct WebSocketFrameBytesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let length: Int
        /// The header: FIN + opcode, then the 7-bit length or 126/127 and the extended length.
        let header: [UInt8]
        var testDescription: String { "\(length) bytes" }
    }

    static let cases: [Case] = [
        Case(length: 0, header: [0x81, 0]),
        Case(length: 125, header: [0x81, 125]),
        Case(length: 126, header: [0x81, 126, 0, 126]),
        Case(length: 65_535, header: [0x81, 126, 0xFF, 0xFF]),
        Case(length: 65_536, header: [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]),
    ]

    @Test(arguments: cases)
    func textFrameHasTheMinimalHeaderThenThePayload(_ testCase: Case) {
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: testCase.length)
        let frame = WebSocketFrameBytes.frame(
            opcode: WebSocketFrameBytes.text,
            payload,
            allocator: ByteBufferAllocator()
        )
        let bytes = Array(frame.readableBytesView)
        #expect(Array(bytes.prefix(testCase.header.count)) == testCase.header)
        #expect(bytes.count == testCase.header.count + testCase.length)
        #expect(bytes.dropFirst(testCase.header.count).allSatisfy { $0 == UInt8(ascii: "x") })
    }

    @Test func closeFrameCarriesCodeAndReason() {
        let frame = WebSocketFrameBytes.close(code: 1008, reason: "slow", allocator: ByteBufferAllocator())
        #expect(Array(frame.readableBytesView) == [0x88, 6, 0x03, 0xF0] + Array("slow".utf8))
        let empty = WebSocketFrameBytes.close(code: nil, reason: "", allocator: ByteBufferAllocator())
        #expect(Array(empty.readableBytesView) == [0x88, 0])
    }

    @Test func controlFrameEchoesItsPayload() {
        var payload = ByteBufferAllocator().buffer(capacity: 4)
        payload.writeBytes([1, 2, 3])
        let allocator = ByteBufferAllocator()
        let pong = WebSocketFrameBytes.frame(opcode: WebSocketFrameBytes.pong, payload, allocator: allocator)
        #expect(Array(pong.readableBytesView) == [0x8A, 3, 1, 2, 3])
    }
}
