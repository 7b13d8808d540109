import Foundation
import HearthTestSupport
import Testing

/// A real full disk, not the shim: the data directory on a 16 MiB tmpfs that a ballast file
/// fills. Needs the right to mount (root with `CAP_SYS_ADMIN`, as on CI); skipped, with that
/// reason, where the test process may not mount.
@Suite("Disk faults: a real full disk (tmpfs)")
struct RealFullDiskTests {
    static let canMount = TmpfsMount.isAllowed()

    @Test(.enabled(if: canMount, "mounting a tmpfs is not allowed here (needs root with CAP_SYS_ADMIN)"))
    func writesAreRefusedOnAFullTmpfsAndResumeWhenItHasRoomAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = try TmpfsMount(at: directory.appending("disk"), megabytes: 16)
        defer { disk.unmount() }
        let data = disk.url.appendingPathComponent("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await server.request("PUT", "/before.json", body: #""kept""#, admin: true).status == 200)

        let ballast = disk.url.appendingPathComponent("ballast")
        try disk.fill(ballast, leaving: 64 << 10)
        // 32 KiB values until the disk refuses one (bounded: far more than the room left).
        let value = "\"" + String(repeating: "x", count: 32 << 10) + "\""
        var acknowledged: [Int] = []
        var refusal: ProcessTestServer.Response?
        for index in 0..<64 {
            let answer = try await server.request("PUT", "/fill/v\(index).json", body: value, admin: true)
            if answer.status != 200 {
                refusal = answer
                break
            }
            acknowledged.append(index)
        }
        let refused = try #require(refusal, "64 writes of 32 KiB fitted in 64 KiB")
        FaultChecks.expectRefused(refused, status: 503, saying: "the disk is full")
        #expect(try await server.request("GET", "/before.json", admin: true).body == #""kept""#)

        try FileManager.default.removeItem(at: ballast)
        try await FaultChecks.expectWritesResume(server, path: "/after.json", body: "3")
        #expect(try await server.terminate().status == 0)

        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let stored = try await again.request("GET", "/fill.json?shallow=true", admin: true)
        let keys = (try JSONSerialization.jsonObject(with: Data(stored.body.utf8)) as? [String: Any]) ?? [:]
        #expect(Set(keys.keys) == Set(acknowledged.map { "v\($0)" }), "\(stored.body)")
        #expect(try await again.request("GET", "/after.json", admin: true).body == "3")
        _ = try await again.terminate()
    }
}

/// A tmpfs mounted for one test, unmounted (lazily, so a process still in it cannot stop it)
/// by `unmount()`.
struct TmpfsMount {
    let url: URL

    init(at url: URL, megabytes: Int) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let mounted = "size=\(megabytes)m".withCString { mount("tmpfs", url.path, "tmpfs", 0, $0) }
        guard mounted == 0 else {
            throw TestFailure("mount tmpfs on \(url.path): \(String(cString: strerror(errno)))")
        }
        self.url = url
    }

    func unmount() {
        // MNT_DETACH (2): not imported as a constant.
        _ = umount2(url.path, 2)
    }

    /// Writes `file` until at most `room` bytes stay free.
    func fill(_ file: URL, leaving room: Int) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw TestFailure("cannot create \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        while true {
            var stats = statvfs()
            guard statvfs(url.path, &stats) == 0 else { throw TestFailure("statvfs \(url.path)") }
            let free = Int(stats.f_bavail) * Int(stats.f_frsize)
            if free <= room { return }
            let chunk = min(1 << 20, free - room)
            do {
                try handle.write(contentsOf: Data(count: chunk))
            } catch {
                return  // full already
            }
        }
    }

    /// Whether this process may mount a tmpfs (tried once on a scratch directory).
    static func isAllowed() -> Bool {
        guard let directory = try? TemporaryDirectory(prefix: "hearth-mount-probe") else { return false }
        defer { directory.remove() }
        guard let probe = try? TmpfsMount(at: directory.appending("probe"), megabytes: 1) else { return false }
        probe.unmount()
        return true
    }
}
