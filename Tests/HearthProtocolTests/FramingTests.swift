import Testing

@testable import HearthProtocol

struct FramingTests {
    @Test func shortMessageIsOneFrameWithoutCount() {
        let message = Array("{\"t\":\"d\",\"d\":{}}".utf8)
        #expect(FrameSplitter.split(message) == [message])
    }

    @Test func exactlyMaxLengthIsOneFrame() {
        let message = Array(String(repeating: "a", count: 16_384).utf8)
        #expect(FrameSplitter.split(message).count == 1)
    }

    @Test func longMessageStartsWithFrameCount() {
        let message = Array(String(repeating: "a", count: 16_385).utf8)
        let frames = FrameSplitter.split(message)
        #expect(frames.count == 3)
        #expect(String(decoding: frames[0], as: UTF8.self) == "2")
        #expect(frames[1].count == 16_384)
        #expect(frames[2].count == 1)
        #expect(Array(frames[1...].joined()) == message)
    }

    struct BoundaryCase: CustomTestStringConvertible, Sendable {
        var id: String
        var prefix: Int  // ASCII characters before the tested character
        var character: String
        var firstPieceUnits: Int
        var testDescription: String { id }
    }

    static let boundaryCases: [BoundaryCase] = [
        // 16,383 ASCII + one surrogate pair: the pair would straddle the boundary, so it moves.
        BoundaryCase(id: "surrogate pair straddling", prefix: 16_383, character: "😀", firstPieceUnits: 16_383),
        // 16,382 ASCII + pair: ends exactly at 16,384 units.
        BoundaryCase(
            id: "surrogate pair ending at the boundary",
            prefix: 16_382,
            character: "😀",
            firstPieceUnits: 16_384
        ),
        // A 3-byte BMP character is one unit although three bytes.
        BoundaryCase(
            id: "three-byte character at the boundary",
            prefix: 16_383,
            character: "€",
            firstPieceUnits: 16_384
        ),
        BoundaryCase(
            id: "two-byte character after the boundary",
            prefix: 16_384,
            character: "é",
            firstPieceUnits: 16_384
        ),
    ]

    @Test(arguments: boundaryCases)
    func multiByteCharactersAtTheBoundary(_ c: BoundaryCase) throws {
        let text = String(repeating: "a", count: c.prefix) + c.character + "tail"
        let message = Array(text.utf8)
        let frames = FrameSplitter.split(message)
        #expect(frames.count == 3)
        #expect(String(decoding: frames[0], as: UTF8.self) == "2")
        // Every piece is valid UTF-8 on its own and at most 16,384 UTF-16 units.
        for piece in frames[1...] {
            let decoded = try #require(String(validating: piece, as: UTF8.self))
            #expect(decoded.utf16.count <= 16_384)
        }
        #expect(FrameSplitter.utf16Length(frames[1]) == c.firstPieceUnits)
        #expect(Array(frames[1...].joined()) == message)
    }

    @Test func manyFramesAndNeverABareZero() {
        for length in [1, 2, 100, 16_384, 16_385, 50_000, 163_841] {
            let message = Array(("{\"d\":\"" + String(repeating: "x", count: length) + "\"}").utf8)
            let frames = FrameSplitter.split(message)
            #expect(frames.allSatisfy { $0 != Array("0".utf8) })
            if frames.count > 1 {
                #expect(Int(String(decoding: frames[0], as: UTF8.self)) == frames.count - 1)
            }
            let joined = frames.count > 1 ? Array(frames[1...].joined()) : frames[0]
            #expect(joined == message)
        }
    }

    @Test func assemblerIgnoresKeepAlive() throws {
        var assembler = FrameAssembler()
        #expect(try assembler.append("0") == .keepAlive)
        #expect(try assembler.append("{\"t\":\"c\"}") == .message(Array("{\"t\":\"c\"}".utf8)))
    }

    @Test func assemblerJoinsAnnouncedFrames() throws {
        var assembler = FrameAssembler()
        #expect(try assembler.append("3") == .incomplete)
        #expect(try assembler.append("{\"a\":") == .incomplete)
        #expect(assembler.isCollecting)
        // Inside a message a "0" frame is data, not a keep-alive.
        #expect(try assembler.append("0") == .incomplete)
        #expect(try assembler.append("}") == .message(Array("{\"a\":0}".utf8)))
        #expect(!assembler.isCollecting)
    }

    @Test func splitThenAssembleRoundTrips() throws {
        let text = "{\"d\":\"" + String(repeating: "ab😀€", count: 20_000) + "\"}"
        var assembler = FrameAssembler()
        var result: [UInt8]?
        for frame in FrameSplitter.split(Array(text.utf8)) {
            if case .message(let bytes) = try assembler.append(frame) { result = bytes }
        }
        #expect(result == Array(text.utf8))
    }

    @Test func assemblerRefusesOversizedMessages() throws {
        var assembler = FrameAssembler(maxMessageBytes: 10)
        #expect(throws: ProtocolError.self) { try assembler.append(String(repeating: "x", count: 11)) }
        var multi = FrameAssembler(maxMessageBytes: 10)
        #expect(try multi.append("2") == .incomplete)
        #expect(try multi.append("123456") == .incomplete)
        #expect(throws: ProtocolError.self) { try multi.append("123456") }
        // After the error the assembler starts over.
        #expect(try multi.append("0") == .keepAlive)
    }

    @Test func sevenDigitFrameIsAMessageNotACount() throws {
        var assembler = FrameAssembler()
        #expect(try assembler.append("1234567") == .message(Array("1234567".utf8)))
    }
}
