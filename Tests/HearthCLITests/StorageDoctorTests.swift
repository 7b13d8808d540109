import Foundation
import HearthTestSupport
import Testing

/// `hearth doctor` on the storage objects of a stopped data directory: each file against its
/// catalogued size and MD5, files no object names reported and, with `--repair`, moved aside.
@Suite("hearth doctor: storage objects")
struct StorageDoctorTests {
    /// A stopped data directory with three objects; their generations (file names) by name.
    static func directoryWithObjects(_ directory: TemporaryDirectory) async throws -> (URL, [String: String]) {
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        var generations: [String: String] = [:]
        for name in ["a.txt", "b.txt", "c.txt"] {
            try await StorageBackupProcessTests.uploadMedia(server, name, Array("the bytes of \(name)".utf8))
            let metadata = try await server.requestBytes(
                "GET",
                StorageBackupProcessTests.objectPath(name),
                admin: true
            ).object()
            generations[name] = try #require(metadata["generation"] as? String)
        }
        #expect(try await server.terminate().status == 0)
        return (data, generations)
    }

    @Test func healthyObjectsAndStrayFilesKeptAsideByRepair() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (data, _) = try await Self.directoryWithObjects(directory)
        let healthy = try await HearthProcess.run(["doctor", "--data", data.path])
        #expect(healthy.status == 0, "\(healthy.stdout) \(healthy.stderr)")
        #expect(healthy.stdout.contains("Checked \(data.path)/storage/db: healthy"), "\(healthy.stdout)")
        #expect(healthy.stdout.contains("3 objects, 0.0 MB, every file matches its size and MD5."), "\(healthy.stdout)")

        // What a killed upload leaves: a file no object names and a part file. Not damage.
        let orphan = data.path + "/storage/objects/1700000000000000"
        let part = data.path + "/storage/tmp/1700000000000001"
        try Data("orphan".utf8).write(to: URL(fileURLWithPath: orphan))
        try Data("part".utf8).write(to: URL(fileURLWithPath: part))
        let stray = try await HearthProcess.run(["doctor", "--data", data.path])
        #expect(stray.status == 0, "\(stray.stdout) \(stray.stderr)")
        #expect(stray.stdout.contains("1 files in storage/objects no object names; 1 part files in storage/tmp"))
        #expect(stray.stdout.contains("2 storage files no object names") && stray.stdout.contains("--repair"))
        #expect(FileManager.default.fileExists(atPath: orphan))

        let repair = try await HearthProcess.run(["doctor", "--data", data.path, "--repair"])
        #expect(repair.status == 0, "\(repair.stdout) \(repair.stderr)")
        let aside = try #require(
            repair.stdout.firstMatch(of: /Moved 2 storage files no object names to '([^']+)\/storage'/).map {
                String($0.1)
            },
            "\(repair.stdout)"
        )
        #expect(try String(contentsOfFile: aside + "/storage/objects/1700000000000000", encoding: .utf8) == "orphan")
        #expect(FileManager.default.fileExists(atPath: aside + "/storage/tmp/1700000000000001"))
        #expect(!FileManager.default.fileExists(atPath: orphan) && !FileManager.default.fileExists(atPath: part))
        let after = try await HearthProcess.run(["doctor", "--data", data.path])
        #expect(after.status == 0 && !after.stdout.contains("no object names"), "\(after.stdout)")
    }

    @Test func missingAndMismatchedObjectsAreDamageRepairCannotFix() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (data, generations) = try await Self.directoryWithObjects(directory)
        let objects = data.path + "/storage/objects/"
        // a.txt: one byte changed (same size, other MD5); b.txt: cut short; c.txt: gone.
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: objects + generations["a.txt"]!)))
        bytes[0] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: objects + generations["a.txt"]!))
        try Data("the".utf8).write(to: URL(fileURLWithPath: objects + generations["b.txt"]!))
        try FileManager.default.removeItem(atPath: objects + generations["c.txt"]!)

        let report = try await HearthProcess.run(["doctor", "--data", data.path])
        #expect(report.status == 1, "\(report.stdout) \(report.stderr)")
        #expect(report.stdout.contains("the storage objects: DAMAGED"), "\(report.stdout)")
        #expect(
            report.stdout.contains("The bytes of object 'a.txt' in bucket 'hearth.appspot.com'"),
            "\(report.stdout)"
        )
        #expect(report.stdout.contains("object 'b.txt'") && report.stdout.contains("has 3 bytes; its metadata says 18"))
        #expect(report.stdout.contains("The file of object 'c.txt'") && report.stdout.contains("is missing."))
        #expect(report.stdout.contains("(0 of 3 objects match their size and MD5)"), "\(report.stdout)")
        #expect(report.stderr.contains("--repair"), "\(report.stderr)")

        let repair = try await HearthProcess.run(["doctor", "--data", data.path, "--repair"])
        #expect(repair.status == 1, "\(repair.stdout) \(repair.stderr)")
        #expect(repair.stderr.contains("3 storage objects are missing or do not match"), "\(repair.stderr)")
        #expect(repair.stderr.contains("restore a backup"), "\(repair.stderr)")
    }
}
