/// The realtime (WebSocket) scenarios' entries of the JSON report.
struct RealtimeReports: Encodable, Sendable {
    var wsPuts: WSPutsReport?
    var wsFanout: WSFanoutReport?
    var wsLatency: WSLatencyReport?
    var wsIdleMemory: WSIdleMemoryReport?
}

/// The printed object: the HTTP scenarios' `Report` and the realtime entries, side by side.
struct BenchOutput: Encodable, Sendable {
    var report: Report
    var realtime: RealtimeReports

    func encode(to encoder: Encoder) throws {
        try report.encode(to: encoder)
        try realtime.encode(to: encoder)
    }
}

struct WSPutsReport: Encodable, Sendable {
    /// Where this run wrote: `/bench/wsputs/<push id of the run>`.
    var path: String
    var connections: Int
    var seconds: Double
    var puts: Int
    var opsPerS: Double
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    var errors: Int
    var firstError: String?
    /// CPU of the benchmark and (with `--server-pid`) the server in the measured window; per put.
    var cpu: CPUWindow
    var targetOpsPerS: Double
    var meetsTarget: Bool
}

struct WSFanoutReport: Encodable, Sendable {
    var runs: [WSFanoutRun]
}

struct WSFanoutRun: Encodable, Sendable {
    var subscribers: Int
    var publishers: Int
    var publisherWindow: Int
    var seconds: Double
    /// Pushes (`d`/`m`) received by all subscribers in the measured window, and per second.
    var deliveries: Int
    var deliveriesPerS: Double
    /// Puts acknowledged over the whole run (warm-up included), and per second in the window.
    var putsAcked: Int
    var putsPerS: Double
    var putP50Ms: Double
    var putP99Ms: Double
    /// Over the whole run, after draining: puts acked × subscribers − pushes received.
    var expectedDeliveries: Int
    var lost: Int
    /// Subscribers the server closed (e.g. 1008 slow consumer).
    var subscribersClosed: Int
    var errors: Int
    var firstError: String?
    /// CPU of the benchmark and (with `--server-pid`) the server in the measured window; per delivery.
    var cpu: CPUWindow
    var targetDeliveriesPerS: Double?
    var meetsTarget: Bool?
}

struct WSLatencyReport: Encodable, Sendable {
    var subscribers: Int
    var publishers: Int
    var putsPerSTarget: Double
    var seconds: Double
    var putsSent: Int
    /// Pushes received in the measured window (put sent at or after the window's start), per second.
    var deliveries: Int
    var deliveriesPerS: Double
    /// Put sent → push received, in milliseconds.
    var p50Ms: Double
    var p99Ms: Double
    var p999Ms: Double
    var maxMs: Double
    /// Missing sequence numbers (gaps, and puts a subscriber never got after draining).
    var lost: Int
    var outOfOrder: Int
    var putAckP50Ms: Double
    var subscribersClosed: Int
    var errors: Int
    var firstError: String?
    /// CPU of the benchmark and (with `--server-pid`) the server in the measured window; per
    /// offered delivery.
    var cpu: CPUWindow
    var targetP50Ms: Double
    var targetP99Ms: Double
    var meetsTarget: Bool
}

struct WSIdleMemoryReport: Encodable, Sendable {
    var connections: Int
    var serverPid: Int
    var openSeconds: Double
    var settleSeconds: Double
    /// The server's VmRSS (kB = 1024 bytes, as /proc reports it).
    var rssBeforeKB: Int
    var rssAfterKB: Int
    var rssAfterCloseKB: Int?
    var kbPerConnection: Double
    var stillOpen: Int
    var errors: Int
    var firstError: String?
    var targetKBPerConnection: Double
    var meetsTarget: Bool
}
