import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// The server's metrics, recorded through swift-metrics into a Prometheus registry of its own
/// (one per server, so servers in one process, as in the tests, keep their figures apart) and
/// served as the Prometheus text format at `GET /metrics` (`MetricsEndpoint`). Counters move as
/// requests are answered; gauges (connections, process figures, store size) are read when
/// scraped.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory
    /// Figures read at each scrape.
    private let sources: Sources
    private let process: ProcessFigures

    /// Where the scrape-time gauges come from.
    struct Sources: Sendable {
        /// Open connections (HTTP, SSE and WebSocket together).
        var openConnections: @Sendable () -> Int = { 0 }
        /// Realtime sessions (WebSocket and SSE).
        var realtimeSessions: @Sendable () -> Int = { 0 }
        /// The data directory, whose files' sizes are the store's size on disk.
        var dataDirectory: String?
    }

    /// Each namespace's size on disk, once the database is open (`measureNamespaces`).
    private let namespaceSizes = Mutex<(@Sendable () -> [String: Int64])?>(nil)

    /// Gauges read at each scrape that parts of the server register (`measure`), by label.
    private let measured = Mutex<[(label: String, read: @Sendable () -> Int)]>([])

    /// Reports `read()` as the gauge `label` at each scrape.
    func measure(_ label: String, _ read: @escaping @Sendable () -> Int) {
        measured.withLock { $0.append((label, read)) }
    }

    /// Reports `sizes` as `hearth_namespace_store_bytes` by namespace at each scrape.
    func measureNamespaces(_ sizes: @escaping @Sendable () -> [String: Int64]) {
        namespaceSizes.withLock { $0 = sizes }
    }

    init(sources: Sources) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(1000),
        ]
        self.factory = factory
        self.sources = sources
        process = ProcessFigures()
    }

    /// The request counter and timer of each route and status seen, made once.
    private let handles = Mutex<[RequestKey: (counter: CoreMetrics.Counter, timer: CoreMetrics.Timer)]>([:])

    private struct RequestKey: Hashable {
        let route: String
        let status: Int
    }

    /// Counts one answered HTTP request of `route` with `status`, and its duration.
    func request(route: String, status: Int, duration: Duration) {
        let key = RequestKey(route: route, status: status)
        let handle = handles.withLock { handles in
            if let known = handles[key] { return known }
            let made = (
                counter: CoreMetrics.Counter(
                    label: "hearth_http_requests_total",
                    dimensions: [("route", route), ("status", String(status))],
                    factory: factory
                ),
                timer: CoreMetrics.Timer(
                    label: "hearth_http_request_duration_seconds",
                    dimensions: [("route", route)],
                    factory: factory
                )
            )
            handles[key] = made
            return made
        }
        handle.counter.increment()
        handle.timer.recordNanoseconds(duration.nanoseconds)
    }

    /// Counters by label and dimensions, made once.
    private let counters = Mutex<[String: CoreMetrics.Counter]>([:])
    /// The push figures' totals as last recorded, by counter key (`record(push:)`).
    let pushTotals = Mutex<[String: Int]>([:])

    /// The counter `label` with `dimensions` (made on first use, then reused).
    func counter(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        let key = dimensions.reduce(label) { $0 + "\u{0}" + $1.0 + "=" + $1.1 }
        return counters.withLock { counters in
            if let known = counters[key] { return known }
            let made = CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = made
            return made
        }
    }

    /// Counts a password sign-in (`accounts:signInWithPassword`) that succeeded or failed.
    func signIn(succeeded: Bool) {
        counter("hearth_sign_ins_total", [("result", succeeded ? "success" : "failure")]).increment()
    }

    /// The Prometheus text of every metric, the scrape-time gauges read now.
    func scrape() -> [UInt8] {
        gauge("hearth_open_connections", sources.openConnections())
        gauge("hearth_realtime_sessions", sources.realtimeSessions())
        if let directory = sources.dataDirectory {
            gauge("hearth_store_size_bytes", Self.directorySize(directory))
        }
        if let sizes = namespaceSizes.withLock({ $0 }) {
            for (namespace, bytes) in sizes() {
                CoreMetrics.Gauge(
                    label: "hearth_namespace_store_bytes",
                    dimensions: [("namespace", namespace)],
                    factory: factory
                )
                .record(bytes)
            }
        }
        for (label, read) in measured.withLock({ $0 }) { gauge(label, read()) }
        let figures = process.read()
        gauge("process_resident_memory_bytes", figures.residentBytes)
        gauge("process_virtual_memory_bytes", figures.virtualBytes)
        gauge("process_open_fds", figures.openFileDescriptors)
        gauge("process_start_time_seconds", figures.startTimeSeconds)
        gauge("process_cpu_seconds", figures.cpuSeconds)
        var out: [UInt8] = []
        registry.emit(into: &out)
        return out
    }

    private func gauge(_ label: String, _ value: some BinaryInteger) {
        CoreMetrics.Gauge(label: label, factory: factory).record(value)
    }

    private func gauge(_ label: String, _ value: Double) {
        CoreMetrics.Gauge(label: label, factory: factory).record(value)
    }

    /// The bytes of the regular files in `directory` and the directories below it, to
    /// `depth` levels (the data directory holds the store's and the accounts' LevelDB
    /// directories, each flat).
    static func directorySize(_ directory: String, depth: Int = 2) -> Int64 {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var total: Int64 = 0
        for name in names {
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFREG {
                total += Int64(info.st_size)
            } else if info.st_mode & S_IFMT == S_IFDIR, depth > 0 {
                total += directorySize(path, depth: depth - 1)
            }
        }
        return total
    }
}
