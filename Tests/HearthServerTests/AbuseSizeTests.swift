import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Abuse: giant HTTP bodies and WebSocket frames and messages are refused as soon as their size
/// is known (a header that announces it, or the bytes read so far), not buffered; limits are
/// 64 KiB here. "Sent" bounds what the server read: the attacker stops when it is answered or
/// its writes fail, and what it sent past the limit sits in socket buffers, unread.
struct AbuseSizeTests {
    static let limit = 64 << 10

    static func smallLimits(_ configuration: inout HearthServerConfiguration, _: URL) {
        configuration.maxRequestBodyBytes = limit
        configuration.realtime.maxFrameBytes = limit
        configuration.realtime.maxMessageBytes = limit
    }

    @Test func giantChunkedBodyIsRefused413WhileItArrives() async throws {
        try await AbuseServer.with(configure: Self.smallLimits) { server, control in
            let (response, sent) = try await onThread { () -> (RawConnection.Response?, Int) in
                let connection = try RawConnection(port: server.port, from: AbuseServer.attacker)
                connection.send(
                    "PUT /open/big.json HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                )
                let chunk =
                    Array("4000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "1"), count: 0x4000) + Array("\r\n".utf8)
                var sent = 0
                // Up to 1 GiB, stopping when the server answers or stops reading.
                while sent < 1 << 30, !connection.readable(within: 0) {
                    guard connection.send(chunk) else { break }
                    sent += chunk.count
                }
                return (try connection.readResponse(timeout: .seconds(30)), sent)
            }
            #expect(response?.status == 413, "\(String(describing: response))")
            #expect(response?.body.contains("65536") == true, "\(String(describing: response))")
            #expect(sent < 64 << 20, "\(sent) bytes sent before the answer")
            #expect(try await server.get("/open/big") == "null")
            try await control.check()
        }
    }

    @Test func giantWebSocketFrameIsRefusedFromItsHeader() async throws {
        try await AbuseServer.with(configure: Self.smallLimits) { server, control in
            let (sent, code) = try await onThread { () -> (Int, Int?) in
                let socket = try RawWebSocket(port: server.port, from: AbuseServer.attacker)
                _ = try socket.readText()  // hello
                // A text frame that announces 1 GiB, then its payload until the server closes.
                var header: [UInt8] = [0x81, 0x80 | 127]
                for shift in stride(from: 56, through: 0, by: -8) { header.append(UInt8(((1 << 30) >> shift) & 0xFF)) }
                header += [1, 2, 3, 4]
                socket.sendRaw(header)
                let piece = [UInt8](repeating: 0x20, count: 64 << 10)
                var sent = 0
                while sent < 1 << 30, socket.sendRaw(piece) { sent += piece.count }
                return (sent, try socket.readUntilDisconnected())
            }
            #expect(code == nil || code == 1009, "close code \(String(describing: code))")
            #expect(sent < 64 << 20, "\(sent) payload bytes sent before the server closed")
            try await control.check()
        }
    }

    @Test func giantWebSocketMessageInSmallFramesIsClosedWith1009() async throws {
        try await AbuseServer.with(configure: Self.smallLimits) { server, control in
            let (frames, code) = try await onThread { () -> (Int, Int?) in
                let socket = try RawWebSocket(port: server.port, from: AbuseServer.attacker)
                _ = try socket.readText()  // hello
                let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 8 << 10)
                // A text message of 1 GiB in 8 KiB fragments, never finished.
                var frames = 0
                do {
                    try socket.sendFrame(
                        firstByte: 0x01,
                        Array(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/open/m","d":""#.utf8)
                    )
                    while frames < (1 << 30) / piece.count {
                        try socket.sendFrame(firstByte: 0x00, piece)
                        frames += 1
                    }
                } catch {}
                return (frames, try socket.readUntilDisconnected())
            }
            #expect(code == 1009, "close code \(String(describing: code))")
            #expect(frames < 8 << 10, "\(frames) fragments of 8 KiB sent before the server closed")
            #expect(try await server.get("/open/m") == "null")
            try await control.check()
        }
    }
}
