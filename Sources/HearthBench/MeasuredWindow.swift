/// The measured part of a timed run, in monotonic nanoseconds: it starts after the warm-up
/// and lasts `seconds`.
struct MeasuredWindow {
    let start: UInt64
    let end: UInt64

    init(start: UInt64, end: UInt64) {
        self.start = start
        self.end = end
    }

    init(warmupSeconds: Double, seconds: Double) {
        start = monotonicNanos() + UInt64(warmupSeconds * 1e9)
        end = start + UInt64(seconds * 1e9)
    }

    /// Waits for the window's start, samples CPU (the server's with `serverPid`), waits for its end.
    func sampleCPU(serverPid: Int?) async throws -> CPUSampler {
        var cpu = CPUSampler(serverPid: serverPid)
        let now = monotonicNanos()
        if start > now { try await Task.sleep(nanoseconds: start - now) }
        cpu.start()
        let later = monotonicNanos()
        if end > later { try await Task.sleep(nanoseconds: end - later) }
        return cpu
    }
}
