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

    private let layout: Layout
    private let removed = Atomic<Bool>(false)

    init(nodes: Int) throws {
        // Unique per lab: labs of tests that ran before may still be being removed.
        let pid = Int(getpid())
        let serial = NetworkLab.made.add(1, ordering: .relaxed).newValue % 100
        let a = 200 + pid % 50
        let b = ((pid / 50 + serial) % 120) * 2
        layout = Layout(
            tag: "\(pid % 100_000)\(serial)",
            prefix: "10.\(a).\(b)",
            postgresAddress: "10.\(a).\(b + 1).1",
            nodes: nodes
        )
        NetworkLab.live.withLock { [layout] in $0[layout.tag] = layout }
        NetworkLab.removeAtExit()
        do {
            try build()
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    var nodes: Int { layout.nodes }
    /// The address PostgreSQL listens on for the nodes.
    var postgresAddress: String { layout.postgresAddress }
    /// The bridge's address: where the nodes' default route goes.
    var gatewayAddress: String { layout.gateway }
    func namespace(_ node: Int) -> String { layout.namespace(node) }
    func address(_ node: Int) -> String { layout.address(node) }
    /// The nodes' network (CIDR), for PostgreSQL's `pg_hba.conf`.
    var nodeNetwork: String { "\(layout.prefix).0/24" }
    /// The command prefix that runs a program in node `node`'s namespace.
    func launcher(_ node: Int) -> [String] { [NetworkLab.ip, "netns", "exec", namespace(node)] }

    private func build() throws {
        let bridge = layout.bridge
        try Self.run(["link", "add", bridge, "type", "bridge"])
        try Self.run(["addr", "add", "\(gatewayAddress)/24", "dev", bridge])
        try Self.run(["addr", "add", "\(postgresAddress)/32", "dev", bridge])
        try Self.run(["link", "set", bridge, "up"])
        for node in 0..<nodes {
            let namespace = namespace(node)
            let (outside, inside) = (layout.outside(node), layout.inside(node))
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
        layout.remove()
        NetworkLab.live.withLock { _ = $0.removeValue(forKey: layout.tag) }
    }

    /// A lab's names and addresses, all made from its tag and prefix: what `build` makes and
    /// what `remove` deletes (at the latest when the process exits), the rules `cut` added
    /// included (rules belong to no interface and would outlive the bridge).
    private struct Layout: Sendable {
        let tag: String
        let prefix: String
        let postgresAddress: String
        let nodes: Int

        var bridge: String { "hb\(tag)" }
        var gateway: String { "\(prefix).1" }
        func namespace(_ node: Int) -> String { "hn\(tag)-\(node)" }
        func address(_ node: Int) -> String { "\(prefix).\(11 + node)" }
        /// The veth pair's ends: on the bridge, and in the node's namespace.
        func outside(_ node: Int) -> String { "hv\(tag)r\(node)" }
        func inside(_ node: Int) -> String { "hv\(tag)n\(node)" }

        func remove() {
            for node in 0..<nodes {
                // The pair goes with either end; the namespace may outlive its name for a while.
                try? NetworkLab.run(["link", "del", outside(node)])
                try? NetworkLab.run(["netns", "del", namespace(node)])
                let rule = ["rule", "del", "from", postgresAddress, "to", address(node), "blackhole"]
                while (try? NetworkLab.run(rule)) != nil {}
            }
            try? NetworkLab.run(["link", "del", bridge])
        }
    }

    private static let made = Atomic<Int>(0)
    private static let live = Mutex<[String: Layout]>([:])
    private static let registered = Atomic<Bool>(false)

    private static func removeAtExit() {
        guard !registered.exchange(true, ordering: .relaxed) else { return }
        atexit {
            for layout in NetworkLab.live.withLock({ $0.values }) { layout.remove() }
        }
    }

    /// Runs `ip arguments…` and waits for it; throws with its output when it fails.
    fileprivate static func run(_ arguments: [String]) throws {
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
