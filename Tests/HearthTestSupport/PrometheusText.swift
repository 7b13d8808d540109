/// Reads the Prometheus text format of `GET /metrics`.
public enum PrometheusText {
    /// The value of the sample `name` (with its labels, as written) in `text`, or nil when it
    /// is not there.
    public static func sample(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}
