import CoreMetrics
import HearthDatabase

extension ServerMetrics {
    /// The database's reports by namespace: the counters `hearth_writes_total`,
    /// `hearth_deliveries_total` (updates handed to listeners) and `hearth_rules_denials_total`
    /// by `operation`; the histograms `hearth_write_duration_seconds` (a caller's write handed to
    /// the writer until acknowledged) and `hearth_delivery_duration_seconds` (a commit announced
    /// until its updates are handed to its listeners); the gauge `hearth_listeners`. Each
    /// namespace's handles are made once, when its engine is. Namespaces exist only by a
    /// permitted write or the admin, so the labels stay few.
    var databaseActivity: DatabaseActivity {
        DatabaseActivity { [factory] name in
            let label = [("namespace", name)]
            let writes = Counter(label: "hearth_writes_total", dimensions: label, factory: factory)
            let deliveries = Counter(label: "hearth_deliveries_total", dimensions: label, factory: factory)
            let denials = Dictionary(
                uniqueKeysWithValues: [NamespaceActivity.Refusal.read, .write].map { what in
                    let dimensions = label + [("operation", what.rawValue)]
                    return (
                        what, Counter(label: "hearth_rules_denials_total", dimensions: dimensions, factory: factory)
                    )
                }
            )
            let writeTimer = Timer(label: "hearth_write_duration_seconds", dimensions: label, factory: factory)
            let deliveryTimer = Timer(label: "hearth_delivery_duration_seconds", dimensions: label, factory: factory)
            let listeners = Gauge(label: "hearth_listeners", dimensions: label, factory: factory)
            return NamespaceActivity(
                committed: { writes.increment() },
                delivered: { deliveries.increment(by: $0) },
                refused: { denials[$0]?.increment() },
                acknowledged: { writeTimer.recordNanoseconds($0.nanoseconds) },
                fannedOut: { deliveryTimer.recordNanoseconds($0.nanoseconds) },
                listeners: { listeners.record($0) }
            )
        }
    }
}
