import Foundation
import HearthTestSupport
import Testing

/// A connection that listens where it writes gets the data of its write before the write's
/// answer, as Firebase's server sends them: the SDKs drop their pending write when the answer
/// arrives and show the server's data from then on, so an answer first makes every local
/// listener see the old value for a moment (the JS SDK 9.8.1 showed `{"name":"Alice"}`, `null`,
/// `{"name":"Alice"}`). Raw frames, in the order they arrive.
struct WriteAnswerOrderTests {
    /// An admin WebSocket listening on `listen` (a `q` body), its initial data read.
    static func listening(port: Int, _ listen: String) async throws -> RawWebSocket {
        try await onThread {
            let socket = try RawWebSocket(port: port)
            _ = try socket.readText()
            try socket.sendText(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"\#(TestServer.adminSecret)"}}}"#)
            _ = try socket.awaitResponse(to: 1)
            try socket.sendText(#"{"t":"d","d":{"r":2,"a":"q","b":\#(listen)}}"#)
            let answer = try socket.awaitResponse(to: 2)
            guard answer.contains(#""s":"ok""#) else { throw TestFailure("listen refused: \(answer)") }
            return socket
        }
    }

    /// Sends request `number` (`action`, `body`) and returns the text frames up to and
    /// including its answer.
    static func frames(
        _ socket: RawWebSocket,
        _ number: Int,
        _ action: String,
        _ body: String
    ) async throws
        -> [String]
    {
        try await onThread {
            try socket.sendText(#"{"t":"d","d":{"r":\#(number),"a":"\#(action)","b":\#(body)}}"#)
            var frames: [String] = []
            while true {
                let text = try socket.readText()
                frames.append(text)
                if text.contains(#""r":\#(number),"#) { return frames }
            }
        }
    }

    @Test func aWritesDataReachesTheWritersListensBeforeItsAnswer() async throws {
        try await TestServer.with { server in
            let socket = try await Self.listening(port: server.port, #"{"p":"/room","h":""}"#)
            for number in 3..<23 {
                let action = number % 2 == 0 ? "p" : "m"
                let body =
                    action == "p"
                    ? #"{"p":"/room/n","d":\#(number)}"# : #"{"p":"/room","d":{"m":\#(number)}}"#
                let frames = try await Self.frames(socket, number, action, body)
                #expect(frames.count == 2, "\(action) \(number): \(frames)")
                #expect(frames.first?.contains(#""a":"\#(action == "p" ? "d" : "m")""#) == true, "\(frames)")
                #expect(frames.first?.contains("\(number)") == true, "the push of this write first: \(frames)")
                #expect(frames.last?.contains(#""s":"ok""#) == true)
            }
            // A write no listen sees is answered at once, with nothing before it.
            let elsewhere = try await Self.frames(socket, 30, "p", #"{"p":"/other","d":1}"#)
            #expect(elsewhere.count == 1 && elsewhere[0].contains(#""s":"ok""#), "\(elsewhere)")
            socket.abort()
        }
    }

    /// A query listen's update comes from its group's re-run (batched at the end of the
    /// delivery queue's jobs): it too arrives before the answer.
    @Test func aQueryListensUpdateArrivesBeforeTheAnswer() async throws {
        try await TestServer.with(rules: #"{"rules": {".read": true, ".write": true, "list": {".indexOn": ["n"]}}}"#) {
            server in
            try await server.put("/list", #"{"a":{"n":1},"b":{"n":2},"c":{"n":3}}"#)
            let socket = try await Self.listening(
                port: server.port,
                #"{"p":"/list","q":{"i":"n","l":2,"vf":"r"},"t":1,"h":""}"#
            )
            for number in 3..<13 {
                let frames = try await Self.frames(
                    socket,
                    number,
                    "p",
                    #"{"p":"/list/k\#(number)","d":{"n":\#(100 + number)}}"#
                )
                #expect(frames.count == 2, "\(number): \(frames)")
                #expect(frames.first?.contains("k\(number)") == true, "the window's update first: \(frames)")
                #expect(frames.last?.contains(#""r":\#(number),"#) == true)
            }
            socket.abort()
        }
    }
}
