/// Splits an outgoing message into WebSocket text frames as the SDKs expect them
/// (`WebSocketConnection.send`): when the message is longer than 16,384 characters, a first
/// frame holding the number of frames, then the pieces. Lengths are counted in UTF-16 code
/// units, as JavaScript's `String.length`; a piece never ends between the two halves of a
/// surrogate pair (nor inside a UTF-8 sequence), so it may hold one unit less.
///
/// The server never sends a bare `0`: a count is only sent for two or more frames, and a
/// message is a JSON object, never a number.
public enum FrameSplitter {
    /// The largest frame the SDKs send and expect (`WEBSOCKET_MAX_FRAME_SIZE`).
    public static let maxFrameLength = 16_384

    /// The frames for one message (valid UTF-8).
    public static func split(_ message: [UInt8], maxFrameLength: Int = maxFrameLength) -> [[UInt8]] {
        precondition(maxFrameLength >= 2, "a frame must hold at least one surrogate pair")
        // Fast path: at most maxFrameLength bytes is at most that many UTF-16 units.
        if message.count <= maxFrameLength { return [message] }
        var pieces: [[UInt8]] = []
        var start = 0
        var units = 0
        var i = 0
        while i < message.count {
            let (length, width) = sequence(at: i, in: message)
            if units + width > maxFrameLength {
                pieces.append(Array(message[start..<i]))
                start = i
                units = 0
            }
            units += width
            i += length
        }
        pieces.append(Array(message[start..<message.count]))
        if pieces.count == 1 { return pieces }
        return [Array(String(pieces.count).utf8)] + pieces
    }

    /// The number of UTF-16 code units of a UTF-8 text.
    public static func utf16Length(_ text: [UInt8]) -> Int {
        var units = 0
        var i = 0
        while i < text.count {
            let (length, width) = sequence(at: i, in: text)
            units += width
            i += length
        }
        return units
    }

    /// The byte length and UTF-16 width of the UTF-8 sequence starting at `i`.
    @inline(__always)
    static func sequence(at i: Int, in bytes: [UInt8]) -> (length: Int, width: Int) {
        let lead = bytes[i]
        let length: Int
        let width: Int
        switch lead {
        case 0x00..<0x80: return (1, 1)
        case 0xC0..<0xE0: (length, width) = (2, 1)
        case 0xE0..<0xF0: (length, width) = (3, 1)
        case 0xF0...0xFF: (length, width) = (4, 2)
        default: return (1, 1)  // a stray continuation byte (never in valid UTF-8)
        }
        return (min(length, bytes.count - i), width)
    }
}
