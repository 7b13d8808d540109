import CoreMetrics
import HearthDatabase

extension ServerMetrics {
    /// The database's reports by namespace: the counters `hearth_writes_total`,
    /// `hearth_deliveries_total` (updates handed to listeners) and `hearth_rules_denials_total`
    /// by `operation`; the histograms `hearth_write_duration_seconds` (a caller's write handed to
    /// the writer until acknowledged) and `hearth_delivery_duration_seconds` (a commit announced
    /// until its updates are handed to its listeners); the gauge `hearth_listeners`. Namespaces exist only by a permitted write or the admin, so the labels
    /// stay few.
    var databaseActivity: DatabaseActivity {
        DatabaseActivity(
            committed: { [self] namespace in
                counter("hearth_writes_total", [("namespace", namespace)]).increment()
            },
            delivered: { [self] namespace, count in
                counter("hearth_deliveries_total", [("namespace", namespace)]).increment(by: count)
            },
            refused: { [self] namespace, what in
                counter("hearth_rules_denials_total", [("namespace", namespace), ("operation", what.rawValue)])
                    .increment()
            },
            acknowledged: { [self] namespace, after in
                timer("hearth_write_duration_seconds", namespace).recordNanoseconds(after.nanoseconds)
            },
            fannedOut: { [self] namespace, after in
                timer("hearth_delivery_duration_seconds", namespace).recordNanoseconds(after.nanoseconds)
            },
            listeners: { [self] namespace, count in
                CoreMetrics.Gauge(label: "hearth_listeners", dimensions: [("namespace", namespace)], factory: factory)
                    .record(count)
            }
        )
    }
}
