/// The JSON object the benchmark prints: one entry per scenario run.
struct Report: Encodable, Sendable {
    var url: String
    var namespace: String
    var serverSync: String
    var clientThreads: Int
    var puts: PutsReport?
    var read50mb: ReadReport?
    var ordered: OrderedReport?
    var `import`: ImportReport?
}

struct PutsReport: Encodable, Sendable {
    /// Where this run wrote: `/bench/puts/<push id of the run>`.
    var path: String
    var phases: [PutsPhase]
}

struct PutsPhase: Encodable, Sendable {
    var clients: Int
    var seconds: Double
    var requests: Int
    var opsPerS: Double
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    var errors: Int
    var firstError: String?
    /// The acknowledged-writes/s target for this phase (64 clients only), and whether it was met.
    var targetOpsPerS: Double?
    var meetsTarget: Bool?
}

struct ReadReport: Encodable, Sendable {
    var loadBytes: Int
    var loadSeconds: Double
    var loadMBPerS: Double
    var bytes: Int
    var runsS: [Double]
    var bestS: Double
    var medianS: Double
    var mbPerS: Double
    var targetS: Double
    var meetsTarget: Bool
}

struct OrderedReport: Encodable, Sendable {
    var children: Int
    var fillSeconds: Double?
    var fillChildrenPerS: Double?
    var limit: Int
    var resultBytes: Int
    var verified: Bool?
    var runs: Int
    var p50Ms: Double
    var minMs: Double
    var maxMs: Double
    var targetMs: Double
    var meetsTarget: Bool
}

struct ImportReport: Encodable, Sendable {
    var fileBytes: Int
    var generateSeconds: Double
    var seconds: Double
    var mbPerS: Double
    var exitStatus: Int32
    var targetMBPerS: Double
    var meetsTarget: Bool
}

/// Nearest-rank percentile of an ascending array (`p` in 0...100).
func percentile<T: BinaryInteger>(_ sorted: [T], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return Double(sorted[min(max(rank, 0), sorted.count - 1)])
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// Rounds for the report (3 decimals).
func r3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
