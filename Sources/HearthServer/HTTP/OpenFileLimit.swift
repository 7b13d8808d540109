#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`): every connection holds a descriptor, so
/// a server started with a low soft limit (systemd's 1024) stops accepting long before it is
/// busy.
enum OpenFileLimit {
    /// The soft and hard limits now; nil when they cannot be read.
    static func current() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit; returns the limits before and after.
    @discardableResult
    static func raiseToHard() -> (before: UInt64, after: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return nil }
        let before = UInt64(limit.rlim_cur)
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            #if canImport(Darwin)
            // macOS refuses a soft limit above OPEN_MAX however high the hard limit.
            raised.rlim_cur = min(limit.rlim_max, rlim_t(OPEN_MAX))
            #endif
            _ = setrlimit(resourceNumber, &raised)
        }
        guard let now = current() else { return nil }
        return (before, now.soft, now.hard)
    }

    #if canImport(Glibc)
    private static let resourceNumber = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNumber = RLIMIT_NOFILE
    #endif
}
