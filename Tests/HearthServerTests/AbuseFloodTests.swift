import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Abuse: floods from one address (connections past its cap, requests past its rate, listens
/// past one connection's bound) are refused with a clear answer while the control client,
/// from another address, keeps working.
struct AbuseFloodTests {
    @Test func connectionFloodPastTheAddressCapIsAnswered429() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.connections.maxConnectionsPerAddress = 4
        }) { server, control in
            let (held, statuses, refusals) = try await onThread {
                () -> ([RawConnection], [Int?], [RawConnection.Response?]) in
                // Each sends its request as soon as it is connected (the header timeout is 2 s).
                // Generous timeouts: the whole suite may load a 2-core machine.
                var held: [RawConnection] = []
                var statuses: [Int?] = []
                for _ in 0..<4 {
                    let connection = try RawConnection(port: server.port, from: AbuseServer.attacker)
                    connection.send(AbuseServer.health + "\r\n")
                    statuses.append(try connection.readResponse(timeout: .seconds(30))?.status)
                    held.append(connection)
                }
                var refusals: [RawConnection.Response?] = []
                for _ in 0..<12 {
                    let extra = try RawConnection(port: server.port, from: AbuseServer.attacker)
                    extra.send(AbuseServer.health + "\r\n")
                    refusals.append(try extra.readResponse(timeout: .seconds(30)))
                    try extra.waitForClose(timeout: .seconds(30))
                }
                return (held, statuses, refusals)
            }
            #expect(statuses == [200, 200, 200, 200])
            for refusal in refusals {
                #expect(refusal?.status == 429, "\(String(describing: refusal))")
                #expect(refusal?.body.contains("Too many connections from your address") == true)
            }
            // The attacker still holds its four connections.
            try await control.check()
            _ = held
        }
    }

    @Test func requestFloodPastTheAddressRateIsAnswered429() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.connections.maxRequestRatePerAddress = 20
        }) { server, control in
            let (answered, seconds, refusal) = try await onThread { () -> (Int, Double, RawConnection.Response?) in
                let connection = try RawConnection(port: server.port, from: AbuseServer.attacker)
                let started = ContinuousClock.now
                var answered = 0
                for _ in 0..<1_000 {
                    connection.send(AbuseServer.health + "\r\n")
                    guard let response = try connection.readResponse(timeout: .seconds(30)) else { break }
                    if response.status == 429 {
                        let elapsed = ContinuousClock.now - started
                        return (
                            answered,
                            Double(elapsed.components.seconds) + 1e-18 * Double(elapsed.components.attoseconds),
                            response
                        )
                    }
                    answered += 1
                }
                return (answered, 0, nil)
            }
            #expect(refusal?.headers["retry-after"] == "1")
            #expect(refusal?.body.contains("Too many requests from your address") == true)
            // A burst of twice the rate, plus what the rate (20/s) refilled while they were sent.
            #expect(
                answered >= 40 && Double(answered) <= 41 + 20 * seconds,
                "\(answered) requests answered in \(seconds) s before the first 429"
            )
            try await control.check()
        }
    }

    @Test func listenFloodStopsAtTheBoundOfOneConnection() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.realtime.maxListensPerConnection = 20
        }) { server, control in
            let (replies, afterUnlisten) = try await onThread { () -> ([String], String) in
                let socket = try RawWebSocket(port: server.port, from: AbuseServer.attacker)
                _ = try socket.readText()  // hello
                for id in 1...25 {
                    try socket.sendText(#"{"t":"d","d":{"r":\#(id),"a":"q","b":{"p":"/open/\#(id)","h":""}}}"#)
                }
                let replies = try (1...25).map { try socket.awaitResponse(to: $0) }
                // The connection keeps its listens and may swap one for another.
                try socket.sendText(#"{"t":"d","d":{"r":26,"a":"n","b":{"p":"/open/1"}}}"#)
                _ = try socket.awaitResponse(to: 26)
                try socket.sendText(#"{"t":"d","d":{"r":27,"a":"q","b":{"p":"/open/27","h":""}}}"#)
                return (replies, try socket.awaitResponse(to: 27))
            }
            for reply in replies.prefix(20) { #expect(reply.contains(#""s":"ok""#), "\(reply)") }
            for reply in replies.suffix(5) {
                #expect(reply.contains(#""s":"failure""#), "\(reply)")
                #expect(reply.contains("Too many listeners on this connection: at most 20 are allowed."), "\(reply)")
            }
            #expect(afterUnlisten.contains(#""s":"ok""#), "\(afterUnlisten)")
            try await control.check()
        }
    }
}
