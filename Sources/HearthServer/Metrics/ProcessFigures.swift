import Foundation

/// The process's own figures for `/metrics`, from `/proc/self` (Linux); zeros where it is
/// not there.
struct ProcessFigures: Sendable {
    struct Figures {
        var residentBytes = 0
        var virtualBytes = 0
        var openFileDescriptors = 0
        var startTimeSeconds = 0.0
        var cpuSeconds = 0.0
    }

    /// Seconds since 1970 when the process started (as this value was made: at server start).
    private let startTime = Date().timeIntervalSince1970

    func read() -> Figures {
        var figures = Figures()
        figures.startTimeSeconds = startTime.rounded()
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ").compactMap { Int($0) }
            if fields.count >= 2 {
                figures.virtualBytes = fields[0] * page
                figures.residentBytes = fields[1] * page
            }
        }
        figures.openFileDescriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            figures.cpuSeconds =
                Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
                + Double(usage.ru_stime.tv_usec) / 1e6
        }
        return figures
    }
}
