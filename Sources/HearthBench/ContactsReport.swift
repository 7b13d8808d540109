/// What the `contacts` scenario measured.
struct ContactsReport: Encodable, Sendable {
    var setup: ContactsSetupReport
    var matchContacts: MatchContactsReport
    var searchUsers: SearchUsersReport
}

/// The load before the measurements: admin-written profiles, signed-up accounts and their profiles.
struct ContactsSetupReport: Encodable, Sendable {
    var profiles: Int
    /// `--contacts-scattered-uids`: the profiles have random uids, not u000001 ….
    var scatteredUids: Bool
    var profilesSeconds: Double
    var profilesPerS: Double
    var accounts: Int
    var signUpSeconds: Double
    var signUpsPerS: Double
    var accountProfilesSeconds: Double
}

/// Client-observed latency of sequential calls over loopback (an upper bound of the server's time).
struct LatencyStats: Encodable, Sendable {
    var calls: Int
    var p50Ms: Double
    var p90Ms: Double
    var p99Ms: Double
    var maxMs: Double
    var meanMs: Double

    init(_ sortedNanos: [UInt64]) {
        calls = sortedNanos.count
        p50Ms = r3(percentile(sortedNanos, 50) / 1e6)
        p90Ms = r3(percentile(sortedNanos, 90) / 1e6)
        p99Ms = r3(percentile(sortedNanos, 99) / 1e6)
        maxMs = r3(Double(sortedNanos.last ?? 0) / 1e6)
        meanMs = r3(Double(sortedNanos.reduce(0, +)) / Double(max(sortedNanos.count, 1)) / 1e6)
    }
}

struct MatchContactsReport: Encodable, Sendable {
    /// The address book: its entries and what they are.
    var entries: Int
    var registeredUsers: Int
    var registeredUsersTwice: Int
    var profilesWithoutAccount: Int
    var numbersNobodyHas: Int
    var unparsable: Int
    var callerOwnNumber: Int
    /// Registered users other than the caller in the book; every answer matched exactly these.
    var expectedMatches: Int
    var verified: Bool
    var calls: Int
    var latency: LatencyStats
    /// Server CPU (user + system, 10 ms ticks) per call over the timed calls, with --server-pid.
    var serverCpuMsPerCall: Double?
    var targetMs: Double
    var meetsTargetAtP50: Bool
    var meetsTargetAtP99: Bool
}

struct SearchQueryReport: Encodable, Sendable {
    var query: String
    /// Registered users other than the caller whose name the query finds.
    var expectedUsers: Int
    var firstPageUsers: Int
    var firstPageHasNext: Bool
    var latency: LatencyStats
}

/// One query's pages followed to the end.
struct SearchWalkReport: Encodable, Sendable {
    var query: String
    var pages: Int
    var users: Int
    var expectedUsers: Int
    /// Pages that listed nobody but had a next one (the scan budget ran out among unregistered profiles).
    var emptyPagesWithNext: Int
    var verified: Bool
}

struct SearchUsersReport: Encodable, Sendable {
    var limit: Int
    var callsPerQuery: Int
    var queries: [SearchQueryReport]
    var overall: LatencyStats
    var serverCpuMsPerCall: Double?
    var walk: SearchWalkReport
    var targetMs: Double
    var meetsTargetAtP50: Bool
    var meetsTargetAtP99: Bool
}
