import Foundation
import HearthCore
import HearthServer
import HearthTestSupport
import Testing

/// Where writers run their rounds is typed configuration (`HearthServerConfiguration.writer`):
/// values that cannot work are refused when the server starts, naming the field; others are used.
struct WriterTuningTests {
    @Test func theDefaultsAreTheMeasuredOnes() {
        let tuning = WriterTuning()
        #expect(tuning.loopJobLimit == .microseconds(100))
        #expect(tuning.homeIdleLimit == .milliseconds(100))
        #expect(tuning.loopProbeInterval == .milliseconds(50))
        #expect(tuning.problem == nil)
    }

    @Test func valuesThatCannotWorkAreNamed() {
        var negative = WriterTuning()
        negative.loopJobLimit = .microseconds(-1)
        #expect(negative.problem == "WriterTuning.loopJobLimit must be between zero and 1 s (it is -1e-06 seconds).")
        var noHome = WriterTuning()
        noHome.homeIdleLimit = .zero
        #expect(
            noHome.problem == "WriterTuning.homeIdleLimit must be more than zero and at most 60 s (it is 0.0 seconds)."
        )
        var noProbe = WriterTuning()
        noProbe.loopProbeInterval = .zero
        #expect(
            noProbe.problem
                == "WriterTuning.loopProbeInterval must be more than zero and at most 60 s (it is 0.0 seconds)."
        )
        var queueOnly = WriterTuning()
        queueOnly.loopJobLimit = .zero
        #expect(queueOnly.problem == nil, "every round on the writers' queues is a valid choice")
    }

    @Test func aServerWithATuningThatCannotWorkDoesNotStart() async throws {
        try await expectRefusedStart { $0.writer.homeIdleLimit = .seconds(61) }
    }

    /// With every round on the writers' queues (no job is cheap enough for a loop), WebSocket
    /// writes are still acknowledged and read back.
    @Test func roundsOnTheQueuesOnlyStillServeWebSocketWrites() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.writer.loopJobLimit = .zero
        }) { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            for value in 1...20 {
                let put = try await client.response(
                    to: client.request("p", #"{"p":"/queued/\#(value)","d":\#(value)}"#)
                )
                #expect(put.body["s"] as? String == "ok")
            }
            #expect(try await server.get("/queued/20") == "20")
            await client.close()
        }
    }
}
