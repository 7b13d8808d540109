import Foundation
import HearthServer
import HearthTestSupport
import Logging
import Testing

/// The fan-out pacing is typed configuration (`RealtimeConfiguration.tuning`): values that
/// cannot work are refused when the server starts, naming the field; others are used.
struct RealtimeTuningTests {
    @Test func theDefaultsAreTheMeasuredOnes() {
        let tuning = RealtimeTuning()
        #expect(tuning.slice == .microseconds(100))
        #expect(tuning.loneBurstSlice == .microseconds(500))
        #expect(tuning.sustainedGap == .milliseconds(1))
        #expect(tuning.burstWindow == .microseconds(250))
        #expect(tuning.quietLoopAfter == .milliseconds(10))
        #expect(tuning.quietLoopRun == .milliseconds(2))
        #expect(tuning.problem == nil)
    }

    @Test func valuesThatCannotWorkAreNamed() {
        var zeroSlice = RealtimeTuning()
        zeroSlice.slice = .zero
        #expect(zeroSlice.problem == "RealtimeTuning.slice must be more than zero and at most 1 s (it is 0.0 seconds).")
        var longGap = RealtimeTuning()
        longGap.sustainedGap = .seconds(2)
        #expect(longGap.problem == "RealtimeTuning.sustainedGap must be between zero and 1 s (it is 2.0 seconds).")
        var longRun = RealtimeTuning()
        longRun.quietLoopRun = .seconds(3)
        #expect(longRun.problem == "RealtimeTuning.quietLoopRun must be between zero and 1 s (it is 3.0 seconds).")
        var neverSustained = RealtimeTuning()
        neverSustained.sustainedGap = .zero
        #expect(neverSustained.problem == nil, "never sustained is a valid choice")
    }

    @Test func aServerWithATuningThatCannotWorkDoesNotStart() async throws {
        try await expectRefusedStart { $0.realtime.tuning.burstWindow = .seconds(-1) }
    }

    /// Another pacing (never sustained, short slices) still delivers every push, in order.
    @Test func anotherTuningStillDeliversEveryPushInOrder() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.tuning.sustainedGap = .zero
            configuration.realtime.tuning.slice = .microseconds(20)
            configuration.realtime.tuning.loneBurstSlice = .microseconds(20)
        }) { server in
            let listener = try await RealtimeTestClient.connect(port: server.port)
            try await listener.authenticateAsAdmin()
            let listen = try await listener.response(to: listener.request("q", #"{"p":"/feed","h":""}"#))
            #expect(listen.body["s"] as? String == "ok")
            for value in 1...20 { try await server.put("/feed", "\(value)") }
            var seen: [Int] = []
            while seen.last != 20 {
                let push = try await listener.nextPush()
                if let value = (push["b"] as? [String: Any])?["d"] as? Int { seen.append(value) }
            }
            #expect(seen == Array(1...20))
            await listener.close()
        }
    }
}

/// Expects a server whose configuration `configure` changed to refuse to start
/// (`HearthServerError`), in a temporary data directory.
func expectRefusedStart(_ configure: (inout HearthServerConfiguration) -> Void) async throws {
    let temporary = try TemporaryDirectory(prefix: "hearth-refused-start")
    defer { temporary.remove() }
    var configuration = HearthServerConfiguration(
        port: 0,
        dataDirectory: temporary.appending("data").path,
        rulesFile: temporary.appending("none.rules.json").path,
        seedFile: nil,
        adminSecret: TestServer.adminSecret
    )
    configure(&configuration)
    var logger = Logger(label: "hearth.test")
    logger.logLevel = .critical
    await #expect(throws: HearthServerError.self) {
        let running = try await HearthServer.start(configuration: configuration, logger: logger)
        await running.shutdown()
    }
}
