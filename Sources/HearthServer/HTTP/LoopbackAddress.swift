/// Loopback peers, which the per-address limits leave alone unless told otherwise (a reverse
/// proxy on the same machine makes every client look like one of them).
enum LoopbackAddress {
    /// True for `::1`, `127.0.0.0/8` and its IPv4-mapped form.
    static func contains(_ ip: String) -> Bool {
        ip == "::1" || ip.hasPrefix("127.") || ip.hasPrefix("::ffff:127.")
    }
}
