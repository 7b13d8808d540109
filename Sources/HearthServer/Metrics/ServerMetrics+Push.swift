import CoreMetrics
import Foundation
import HearthCore
import HearthPush
import Synchronization

extension ServerMetrics {
    /// Records the push queues' figures at a scrape: `hearth_push_queued`, `hearth_push_intents`
    /// and `hearth_push_oldest_age_seconds` (gauges, by namespace), `hearth_push_sent_total` and
    /// `hearth_push_failed_total` (counters, by namespace, and by reason: every failed attempt)
    /// and `hearth_push_dropped_total` (pushes given up, by reason). The counters move by what
    /// the figures grew since the last scrape.
    func record(push figures: [String: PushQueueFigures]) {
        let now = ServerClock.system.now()
        for (namespace, figure) in figures {
            let ns = ("namespace", namespace)
            CoreMetrics.Gauge(label: "hearth_push_queued", dimensions: [ns], factory: factory).record(figure.queued)
            CoreMetrics.Gauge(label: "hearth_push_intents", dimensions: [ns], factory: factory).record(figure.intents)
            CoreMetrics.Gauge(label: "hearth_push_oldest_age_seconds", dimensions: [ns], factory: factory)
                .record(figure.oldestCreatedAt.map { max(0, now - $0) / 1000 } ?? 0)
            advance("hearth_push_sent_total", [ns], to: figure.sent)
            for (reason, count) in figure.failed {
                advance("hearth_push_failed_total", [ns, ("reason", reason)], to: count)
            }
            for (reason, count) in figure.dropped {
                advance("hearth_push_dropped_total", [ns, ("reason", reason)], to: count)
            }
        }
    }

    /// Moves counter `label` up to `total` (a figure counted since the server started).
    private func advance(_ label: String, _ dimensions: [(String, String)], to total: Int) {
        let key = dimensions.reduce(label) { $0 + "\u{0}" + $1.0 + "=" + $1.1 }
        let delta = pushTotals.withLock { totals -> Int in
            let delta = total - totals[key, default: 0]
            totals[key] = max(total, totals[key, default: 0])
            return delta
        }
        if delta > 0 { counter(label, dimensions).increment(by: Int64(delta)) }
    }
}
