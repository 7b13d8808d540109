/// The printed object: the report of the scenarios that share one (`output`) and one entry per
/// scenario that has its own report (`contacts`, `chat_unread_latency`), each only when it ran.
struct BenchOutputWithEntries: Encodable {
    var output: any Encodable
    var entries: [(key: String, report: (any Encodable)?)]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
        try output.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        for (key, report) in entries {
            if let report { try container.encode(report, forKey: Key(stringValue: key)) }
        }
    }
}
