import CoreMetrics
import HearthDatabase

extension ServerMetrics {
    /// The database's reports as counters by namespace: `hearth_writes_total`,
    /// `hearth_deliveries_total` (updates handed to listeners) and `hearth_rules_denials_total`
    /// by `operation`. Namespaces exist only by a permitted write or the admin, so the labels
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
            }
        )
    }
}
