import HearthFuzzSupport
import HearthProtocol

/// The WebSocket message framing: `FrameAssembler` (frames in, messages out, with a size bound) never
/// returns more than it was given or more than its bound, and `FrameSplitter`'s frames, assembled, are
/// the message again, each frame at most the frame length in UTF-16 units.
enum FramesFuzz {
    static let target = FuzzTarget(name: "frames") { input in
        guard input.count >= 2 else { return }
        let limit = Int(input[0]) * 4 + 1
        let body = Array(input.dropFirst(2))

        // The input as frames separated by newlines, into an assembler with a small bound.
        var assembler = FrameAssembler(maxMessageBytes: limit)
        var given = 0
        for frame in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            given += frame.count
            switch try? assembler.append(frame) {
            case .message(let message)?:
                require(message.count <= limit, "a message of \(message.count) bytes passed the \(limit) bound")
                require(message.count <= given, "a message longer than the frames given")
                given = 0
            case .keepAlive?, nil:
                given = 0
            case .incomplete?:
                break
            }
        }

        // The input as one message, split into frames of a length the second byte chooses.
        let maxFrameLength = Int(input[1]) + 2
        guard String(validating: body, as: UTF8.self) != nil else { return }
        let frames = FrameSplitter.split(body, maxFrameLength: maxFrameLength)
        var reader = FrameAssembler()
        var assembled: [UInt8]?
        for (index, frame) in frames.enumerated() {
            // The first of several frames is their count.
            require(
                frames.count == 1 || index == 0 || FrameSplitter.utf16Length(frame) <= maxFrameLength,
                "a frame longer than \(maxFrameLength) UTF-16 units"
            )
            if case .message(let message)? = try? reader.append(frame) { assembled = message }
        }
        // A one-frame message of one to six digits is a frame count, not a message: the server never
        // sends one (its messages are JSON objects).
        if frames.count == 1, body.count <= 6, !body.isEmpty, body.allSatisfy({ (0x30...0x39).contains($0) }) {
            return
        }
        require(assembled == body, "split into \(frames.count) frames, the message does not assemble back")
    }
}
