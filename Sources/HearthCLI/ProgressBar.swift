import Foundation
import Synchronization

/// A one-line progress display on stderr (bytes done / total, MB/s), drawn only when stderr is
/// a terminal and at most ten times a second.
final class ProgressBar: Sendable {
    private struct State {
        var bytes: Int64 = 0
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
    }

    private let label: String
    private let total: Int64?
    private let enabled: Bool
    private let start = ContinuousClock.now
    private let state = Mutex(State())

    init(label: String, total: Int64?, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.total = total
        self.enabled = enabled
    }

    /// Records that `bytes` bytes are done in all.
    func update(_ bytes: Int64) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let line: String? = state.withLock { state in
            state.bytes = bytes
            if let last = state.lastDraw, now - last < .milliseconds(100) { return nil }
            state.lastDraw = now
            state.drawn = true
            return render(bytes: bytes, now: now)
        }
        if let line { Self.writeStderr("\r" + line) }
    }

    /// Draws the final state and ends the line.
    func finish() {
        guard enabled else { return }
        let bytes = state.withLock { $0.bytes }
        Self.writeStderr("\r" + render(bytes: bytes, now: .now) + "\n")
    }

    /// `label  [#####.....]  45%  12.3 / 27.4 MB  56.7 MB/s`
    func render(bytes: Int64, now: ContinuousClock.Instant) -> String {
        let elapsed = (now - start) / .seconds(1)
        let rate = elapsed > 0 ? Double(bytes) / 1_000_000 / elapsed : 0
        let done = Self.megabytes(bytes)
        if let total, total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let percent = Int(fraction * 100)
            return "\(label)  [\(bar)] \(percent)%  \(done) / \(Self.megabytes(total)) MB  "
                + "\(String(format: "%.1f", rate)) MB/s   "
        }
        return "\(label)  \(done) MB  \(String(format: "%.1f", rate)) MB/s   "
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }

    static func writeStderr(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
