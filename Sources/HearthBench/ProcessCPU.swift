#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system) of the benchmark itself and, when `--server-pid` is given, of the
/// server, over a measured window, from `/proc/<pid>/stat` (clock ticks, usually 10 ms). Both
/// share the machine, so this shows which side saturates.
struct CPUSampler: Sendable {
    let serverPid: Int?
    private var clientStart: Double?
    private var serverStart: Double?
    private var wallStart: UInt64 = 0

    init(serverPid: Int?) {
        self.serverPid = serverPid
    }

    /// Starts the window.
    mutating func start() {
        clientStart = Self.cpuSeconds(pid: nil)
        serverStart = serverPid.flatMap { Self.cpuSeconds(pid: $0) }
        wallStart = monotonicNanos()
    }

    /// Ends the window; `operations` (deliveries, puts) done in it give the CPU cost of each.
    func stop(operations: Int) -> CPUWindow {
        let wall = Double(monotonicNanos() - wallStart) / 1e9
        let client = both(clientStart, Self.cpuSeconds(pid: nil)).map { $0.1 - $0.0 }
        let server = both(serverStart, serverPid.flatMap { Self.cpuSeconds(pid: $0) }).map { $0.1 - $0.0 }
        let ops = Double(max(operations, 1))
        return CPUWindow(
            clientCores: client.map { r3($0 / wall) },
            serverCores: server.map { r3($0 / wall) },
            clientMicrosPerOp: client.map { r3($0 * 1e6 / ops) },
            serverMicrosPerOp: server.map { r3($0 * 1e6 / ops) }
        )
    }

    /// utime + stime of a process (nil: this one), in seconds.
    static func cpuSeconds(pid: Int?) -> Double? {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        guard let text = readSmallFile(path), let close = text.lastIndex(of: ")") else { return nil }
        // After the command's closing parenthesis: state (field 3), …, utime (14), stime (15).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        #if canImport(Glibc)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        #else
        let ticks = 100.0
        #endif
        return (user + system) / ticks
    }

    private static func readSmallFile(_ path: String) -> String? {
        #if canImport(Glibc)
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = fread(&buffer, 1, buffer.count, file)
        return String(decoding: buffer[0..<count], as: UTF8.self)
        #else
        return nil
        #endif
    }
}

/// Cores used over a window (CPU seconds / wall seconds) and CPU microseconds per operation.
struct CPUWindow: Encodable, Sendable {
    var clientCores: Double?
    var serverCores: Double?
    var clientMicrosPerOp: Double?
    var serverMicrosPerOp: Double?
}

private func both(_ a: Double?, _ b: Double?) -> (Double, Double)? {
    guard let a, let b else { return nil }
    return (a, b)
}
