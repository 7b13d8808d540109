import Foundation
import Synchronization
import Testing

@testable import HearthServer

@Suite struct RequestRateLimiterTests {
    final class Clock: Sendable {
        let seconds = Mutex<Double>(100)
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    @Test func anAddressGetsItsBurstThenItsRateAndOthersAreUntouched() {
        let clock = Clock()
        let limiter = RequestRateLimiter(rate: 5, burst: 10, now: { clock.seconds.withLock { $0 } })
        let admitted = (0..<15).filter { _ in limiter.admit("203.0.113.9") }.count
        #expect(admitted == 10)
        #expect(limiter.admit("198.51.100.1"))
        #expect(limiter.admit("127.0.0.1"))
        #expect(limiter.admit(nil))
        clock.advance(0.4)  // two tokens back
        #expect(limiter.admit("203.0.113.9"))
        #expect(limiter.admit("203.0.113.9"))
        #expect(!limiter.admit("203.0.113.9"))
    }

    @Test func memoryStaysBoundedByForgettingIdleAddresses() {
        let clock = Clock()
        let limiter = RequestRateLimiter(rate: 1, burst: 1, maxAddresses: 100, now: { clock.seconds.withLock { $0 } })
        for index in 0..<1_000 {
            #expect(limiter.admit("10.0.\(index / 256).\(index % 256)"))
            clock.advance(0.01)
        }
        // The last address spent its token and is remembered: refused.
        #expect(!limiter.admit("10.0.3.231"))
    }
}

@Suite struct RequestRateEndpointTests {
    @Test func requestsOverTheAddresssRateAreAnswered429() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                // One a second, bursts of two: 30 requests at once cannot all pass, however slow
                // the machine.
                configuration.connections.maxRequestRatePerAddress = 1
                configuration.connections.limitsLoopback = true
            },
            run: { server in
                let replies = try await withThrowingTaskGroup(of: TestServer.Reply.self) { group in
                    for _ in 0..<30 { group.addTask { try await server.send("GET", "/x.json") } }
                    return try await group.reduce(into: [TestServer.Reply]()) { $0.append($1) }
                }
                let statuses = replies.map(\.status)
                #expect(statuses.filter { $0 != 429 }.count >= 2, "\(statuses)")
                #expect(statuses.filter { $0 == 429 }.count >= 20, "\(statuses)")
                // A refusal of the burst itself (a request sent later may find a token again on
                // a machine slow enough to take a second per request).
                let refused = try #require(replies.first { $0.status == 429 })
                #expect(refused.headers["Retry-After"].first == "1")
                #expect(refused.body.contains("Too many requests from your address"))
                // The bucket refills.
                let later = try await eventually(timeout: .seconds(10)) {
                    try await server.send("GET", "/x.json")
                } until: {
                    $0.status != 429
                }
                #expect(later.status != 429)
            }
        )
    }

    /// A direct REST write the writer refuses is answered where it was admitted, not handed to
    /// the router to be admitted again: the request counts once against its address's rate.
    @Test func aWriteRefusedInTheWriterCountsOnce() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                // One a second, bursts of two: the first write and the refused one.
                configuration.connections.maxRequestRatePerAddress = 1
                configuration.connections.limitsLoopback = true
                try #"{"rules": {"n": {".read": true, ".write": true, ".validate": "newData.isNumber()"}}}"#
                    .write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            },
            run: { server in
                // The first opens the namespace (the router's), the second is the direct path's,
                // refused by `.validate` in the writer.
                let first = try await server.send("PUT", "/n.json", text: "1")
                #expect(first.status == 200, "\(first.status) \(first.body)")
                let refused = try await server.send("PUT", "/n.json", text: #""text""#)
                #expect(refused.status != 429, "\(refused.status) \(refused.body)")
                #expect(refused.body.contains("ermission denied"), "\(refused.body)")
            }
        )
    }
}
