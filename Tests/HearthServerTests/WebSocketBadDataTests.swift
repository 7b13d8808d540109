import Foundation
import HearthTestSupport
import Testing

/// Bad data in one request is answered `failure` on an open connection (an SDK would otherwise
/// re-send it on every reconnect); bad WebSocket framing fails the connection (RFC 6455).
struct WebSocketBadDataTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let id: String
        let action: String
        /// The request body, with a lone surrogate escape somewhere.
        let body: String
        /// The whole `failure` message.
        let message: String
        var testDescription: String { id }
    }

    static let rule =
        ", an unpaired UTF-16 surrogate; paths, keys and strings must be valid Unicode (a surrogate only as half of a pair)."

    static let cases: [Case] = [
        Case(
            id: "put value",
            action: "p",
            body: #"{"p":"/bad","d":"x\ud800y"}"#,
            message: #"Invalid data at '/bad': the string 'x\ud800y' holds '\ud800'"# + rule
        ),
        Case(
            id: "put value, low half alone",
            action: "p",
            body: #"{"p":"/bad","d":{"a":["ok","\udc00"]}}"#,
            message: #"Invalid data at '/bad': the string '\udc00' holds '\udc00'"# + rule
        ),
        Case(
            id: "put key",
            action: "p",
            body: #"{"p":"/bad","d":{"k\uD800":1}}"#,
            message: #"Invalid data at '/bad': the key 'k\uD800' holds '\uD800'"# + rule
        ),
        Case(
            id: "put path",
            action: "p",
            body: #"{"p":"/bad/\ud800","d":1}"#,
            message: #"Invalid path '/bad/\ud800': it holds '\ud800'"# + rule
        ),
        Case(
            id: "merge key",
            action: "m",
            body: #"{"p":"/bad","d":{"a/\ud800":1}}"#,
            message: #"Invalid update at '/bad': the key 'a/\ud800' holds '\ud800'"# + rule
        ),
        Case(
            id: "merge value",
            action: "m",
            body: #"{"p":"/bad","d":{"a":"\ud800"}}"#,
            message: #"Invalid data at '/bad/a': the string '\ud800' holds '\ud800'"# + rule
        ),
        Case(
            id: "onDisconnect value",
            action: "o",
            body: #"{"p":"/bad","d":"\ud800"}"#,
            message: #"Invalid data at '/bad': the string '\ud800' holds '\ud800'"# + rule
        ),
        Case(
            id: "listen path",
            action: "q",
            body: #"{"p":"/bad\ud800","h":""}"#,
            message: #"Invalid path '/bad\ud800': it holds '\ud800'"# + rule
        ),
    ]

    @Test(arguments: cases)
    func loneSurrogateIsAnsweredFailureAndTheConnectionStaysOpen(_ c: Case) async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            let reply = try await client.response(to: client.request(c.action, c.body))
            #expect(reply.body["s"] as? String == "failure")
            #expect(reply.body["d"] as? String == c.message)
            // The same connection goes on: the next put is applied and acknowledged.
            let next = try await client.response(to: client.request("p", #"{"p":"/after","d":"fine \ud83d\ude00"}"#))
            #expect(next.body["s"] as? String == "ok")
            #expect(client.isEnded == false)
            #expect(try await server.get("/after") == "\"fine \u{1F600}\"")
            #expect(try await server.get("/bad") == "null")
            await client.close()
        }
    }

    /// Opcodes 0x3-0x7 (data) and 0xB-0xF (control) are reserved.
    static let reservedOpcodes: [UInt8] = [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF]

    @Test(arguments: reservedOpcodes)
    func aFrameWithAReservedOpcodeFailsTheConnection(_ opcode: UInt8) async throws {
        try await TestServer.with { server in
            let port = server.port
            let code = try await onThread { () -> Int? in
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()  // hello
                try socket.sendFrame(firstByte: 0x80 | opcode, Array("{}".utf8))
                return try socket.readUntilDisconnected()
            }
            #expect(code == 1002)
        }
    }

    @Test func aFrameWithAReservedBitFailsTheConnection() async throws {
        try await TestServer.with { server in
            let port = server.port
            let code = try await onThread { () -> Int? in
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()
                // RSV1 with a text frame: no extension was negotiated.
                try socket.sendFrame(firstByte: 0x80 | 0x40 | 0x1, Array(#"{"t":"c","d":{"t":"p","d":{}}}"#.utf8))
                return try socket.readUntilDisconnected()
            }
            #expect(code == 1002)
        }
    }

    /// A text frame that is not UTF-8 at all breaks the WebSocket itself, not one request.
    @Test func aTextFrameThatIsNotUTF8FailsTheConnectionWith1007() async throws {
        try await TestServer.with { server in
            let port = server.port
            let code = try await onThread { () -> Int? in
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()
                var bytes = Array(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/x","d":"#.utf8)
                bytes += [0x22, 0xC3, 0x28, 0x22]  // a string holding an invalid UTF-8 sequence
                bytes += Array("}}}".utf8)
                try socket.sendFrame(firstByte: 0x81, bytes)
                return try socket.readUntilDisconnected()
            }
            #expect(code == 1007)
            #expect(try await server.get("/x") == "null")
        }
    }

    @Test func pongsFromTheClientAreIgnored() async throws {
        try await TestServer.with { server in
            let port = server.port
            let answer = try await onThread { () -> String in
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()
                try socket.sendFrame(firstByte: 0x8A, [])  // an unsolicited pong
                try socket.sendText(#"{"t":"c","d":{"t":"p","d":{}}}"#)
                return try socket.readText()
            }
            #expect(answer == #"{"t":"c","d":{"t":"o","d":{}}}"#)
        }
    }
}
