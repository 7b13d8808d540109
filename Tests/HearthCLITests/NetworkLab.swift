import Foundation
import HearthTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Network namespaces a test creates on this machine, to cut one cluster node off from
/// PostgreSQL while clients and the other nodes still reach it (issue 39, test 5).
///
/// Layout (nothing leaves the machine: a bridge with no physical port):
/// - a bridge in the test's own namespace, `10.A.B.1/24` (clients connect from there), which
///   also holds PostgreSQL's address `10.A.B+1.1/32` (reached through the bridge's address);
/// - one namespace per node, `10.A.B.(11+i)/24` on a veth pair whose other end is on the
///   bridge, default route through `10.A.B.1`;
/// - `cut(node)` adds blackhole routes both ways between the node and PostgreSQL's address:
///   packets are dropped silently (a partition, not a refused connection); `heal(node)` removes them.
///
/// Needs root and iproute2 (`ip`). Everything is removed by `remove()`, and at the latest when
/// the test process exits.
final class NetworkLab: Sendable {
    /// True where the lab can be built: root, and `ip` installed.
    static let isAvailable: Bool = getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip)

    /// iproute2's `ip` (`.ci/run` installs it when missing).
    static let ip: String =
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        } ?? "/usr/sbin/ip"

    let nodes: Int
    private let tag: String
    private let prefix: String
    /// The address PostgreSQL listens on for the nodes.
    let postgresAddress: String
    /// The bridge's address: where the nodes' default route goes.
    let gatewayAddress: String
    private let removed = Atomic<Bool>(false)

    init(nodes: Int) throws {
        self.nodes = nodes
        // Unique per lab: labs of tests that ran before may still be being removed.
        let pid = Int(getpid())
        let serial = NetworkLab.made.add(1, ordering: .relaxed).newValue % 100
        tag = "\(pid % 100_000)\(serial)"
        let a = 200 + pid % 50
        let b = ((pid / 50 + serial) % 120) * 2
        prefix = "10.\(a).\(b)"
        gatewayAddress = "\(prefix).1"
        postgresAddress = "10.\(a).\(b + 1).1"
        NetworkLab.live.withLock {
            $0[tag] = Leftovers(tag: tag, nodes: nodes, postgresAddress: postgresAddress, prefix: prefix)
        }
        NetworkLab.removeAtExit()
        do {
            try build()
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    var bridge: String { "hb\(tag)" }
    func namespace(_ node: Int) -> String { "hn\(tag)-\(node)" }
    func address(_ node: Int) -> String { "\(prefix).\(11 + node)" }
    /// The nodes' network (CIDR), for PostgreSQL's `pg_hba.conf`.
    var nodeNetwork: String { "\(prefix).0/24" }
    /// The command prefix that runs a program in node `node`'s namespace.
    func launcher(_ node: Int) -> [String] { [NetworkLab.ip, "netns", "exec", namespace(node)] }

    private func build() throws {
        try Self.run(["link", "add", bridge, "type", "bridge"])
        try Self.run(["addr", "add", "\(gatewayAddress)/24", "dev", bridge])
        try Self.run(["addr", "add", "\(postgresAddress)/32", "dev", bridge])
        try Self.run(["link", "set", bridge, "up"])
        for node in 0..<nodes {
            let namespace = namespace(node)
            let outside = "hv\(tag)r\(node)"
            let inside = "hv\(tag)n\(node)"
            try Self.run(["netns", "add", namespace])
            try Self.run(["link", "add", outside, "type", "veth", "peer", "name", inside])
            try Self.run(["link", "set", inside, "netns", namespace])
            try Self.run(["link", "set", outside, "master", bridge])
            try Self.run(["link", "set", outside, "up"])
            try Self.run(["-n", namespace, "link", "set", "lo", "up"])
            try Self.run(["-n", namespace, "addr", "add", "\(address(node))/24", "dev", inside])
            try Self.run(["-n", namespace, "link", "set", inside, "up"])
            try Self.run(["-n", namespace, "route", "add", "default", "via", gatewayAddress])
        }
    }

    /// Drops every packet between node `node` and PostgreSQL, both ways.
    func cut(_ node: Int) throws {
        try Self.run(["-n", namespace(node), "route", "add", "blackhole", "\(postgresAddress)/32"])
        try Self.run(["rule", "add", "from", postgresAddress, "to", address(node), "blackhole"])
    }

    /// Undoes `cut(node)`.
    func heal(_ node: Int) throws {
        try Self.run(["-n", namespace(node), "route", "del", "blackhole", "\(postgresAddress)/32"])
        try Self.run(["rule", "del", "from", postgresAddress, "to", address(node), "blackhole"])
    }

    /// Deletes the namespaces (and with them the veth pairs) and the bridge.
    func remove() {
        guard !removed.exchange(true, ordering: .relaxed) else { return }
        Self.remove(Leftovers(tag: tag, nodes: nodes, postgresAddress: postgresAddress, prefix: prefix))
        NetworkLab.live.withLock { _ = $0.removeValue(forKey: tag) }
    }

    /// What `remove` deletes: the namespaces, the bridge, and the rules `cut` added (rules
    /// belong to no interface and would outlive the bridge).
    private struct Leftovers {
        var tag: String
        var nodes: Int
        var postgresAddress: String
        var prefix: String
    }

    private static func remove(_ lab: Leftovers) {
        for node in 0..<lab.nodes {
            // The pair goes with either end; the namespace may outlive its name for a while.
            try? run(["link", "del", "hv\(lab.tag)r\(node)"])
            try? run(["netns", "del", "hn\(lab.tag)-\(node)"])
            let rule = ["rule", "del", "from", lab.postgresAddress, "to", "\(lab.prefix).\(11 + node)", "blackhole"]
            while (try? run(rule)) != nil {}
        }
        try? run(["link", "del", "hb\(lab.tag)"])
    }

    private static let made = Atomic<Int>(0)
    private static let live = Mutex<[String: Leftovers]>([:])
    private static let registered = Atomic<Bool>(false)

    private static func removeAtExit() {
        guard !registered.exchange(true, ordering: .relaxed) else { return }
        atexit {
            for lab in NetworkLab.live.withLock({ $0.values }) { NetworkLab.remove(lab) }
        }
    }

    /// Runs `ip arguments…` and waits for it; throws with its output when it fails.
    private static func run(_ arguments: [String]) throws {
        let output = NSTemporaryDirectory() + "hearth-netlab-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(output) }
        let process = try SpawnedProcess(
            executable: ip,
            arguments: arguments,
            environment: ProcessInfo.processInfo.environment,
            directory: nil,
            stdin: nil,
            stdout: output,
            stderr: output
        )
        while process.isRunning { usleep(2_000) }
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw TestSetupError("ip \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }
}
