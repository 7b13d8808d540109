import Foundation
import HearthTestSupport
import Testing

/// `hearth import` and `hearth export` as processes.
@Suite("Import and export")
struct ImportExportProcessTests {
    /// A JSON document of `count` records with strings, numbers, booleans and nesting.
    static func document(count: Int, padding: Int = 0) -> String {
        var json = "{"
        for index in 0..<count {
            if index > 0 { json += "," }
            // JSON-escaped already: a quote and a backslash.
            let text = #"record \#(index) — ünïcødé ✓ \"quoted\" \\ "# + String(repeating: "x", count: padding)
            json += #""r\#(index)":{"name":"\#(text)","n":\#(index),"half":\#(Double(index) / 2),"#
            json += #""ok":\#(index % 2 == 0),"tags":{"a":"t\#(index % 7)","deep":{"z":-\#(index)}}}"#
        }
        return json + "}"
    }

    static func parse(_ text: String) throws -> NSDictionary {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        return object as? NSDictionary ?? [:]
    }

    @Test func importThenExportRoundTrips() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.appending("in.json")
        let text = Self.document(count: 2_000)
        try text.write(to: input, atomically: true, encoding: .utf8)

        let imported = try await HearthProcess.run(["import", input.path, "--data", "data"], directory: directory.url)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        #expect(!imported.stderr.contains("\r"), "no progress bar when stderr is not a terminal")

        let exported = try await HearthProcess.run(["export", "--data", "data"], directory: directory.url)
        #expect(exported.status == 0, "stderr: \(exported.stderr)")
        #expect(try Self.parse(exported.stdout) == Self.parse(text))

        let toFile = try await HearthProcess.run(
            ["export", "--data", "data", "--output", "out.json"],
            directory: directory.url
        )
        #expect(toFile.status == 0)
        let written = try String(contentsOf: directory.appending("out.json"), encoding: .utf8)
        #expect(try Self.parse(written) == Self.parse(text))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.contains(".partial-") }
        #expect(leftovers.isEmpty)
    }

    @Test func pathAndNamespaceSelectWhereDataGoes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try #"{"a":{"b":1},"c":"two"}"#.write(to: directory.appending("one.json"), atomically: true, encoding: .utf8)
        try #"{"other":true}"#.write(to: directory.appending("two.json"), atomically: true, encoding: .utf8)

        let first = try await HearthProcess.run(
            ["import", "one.json", "--data", "data", "--path", "/x/y"],
            directory: directory.url
        )
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let second = try await HearthProcess.run(
            ["import", "two.json", "--data", "data", "--ns", "chat"],
            directory: directory.url
        )
        #expect(second.status == 0, "stderr: \(second.stderr)")

        let all = try await HearthProcess.run(["export", "--data", "data"], directory: directory.url)
        #expect(try Self.parse(all.stdout) == Self.parse(#"{"x":{"y":{"a":{"b":1},"c":"two"}}}"#))
        let sub = try await HearthProcess.run(
            ["export", "--data", "data", "--path", "/x/y/a"],
            directory: directory.url
        )
        #expect(try Self.parse(sub.stdout) == Self.parse(#"{"b":1}"#))
        let leaf = try await HearthProcess.run(
            ["export", "--data", "data", "--path", "/x/y/c"],
            directory: directory.url
        )
        #expect(leaf.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #""two""#)
        let chat = try await HearthProcess.run(["export", "--data", "data", "--ns", "chat"], directory: directory.url)
        #expect(try Self.parse(chat.stdout) == Self.parse(#"{"other":true}"#))
        let empty = try await HearthProcess.run(
            ["export", "--data", "data", "--path", "/nothing"],
            directory: directory.url
        )
        #expect(empty.status == 0)
        #expect(empty.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "null")

        // Importing at a path replaces what is there.
        try #"{"only":1}"#.write(to: directory.appending("three.json"), atomically: true, encoding: .utf8)
        let replace = try await HearthProcess.run(
            ["import", "three.json", "--data", "data", "--path", "/x/y"],
            directory: directory.url
        )
        #expect(replace.status == 0)
        let after = try await HearthProcess.run(["export", "--data", "data", "--path", "/x"], directory: directory.url)
        #expect(try Self.parse(after.stdout) == Self.parse(#"{"y":{"only":1}}"#))
    }

    @Test func exportFormatKeepsPriorities() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = #"{"a":{".priority":5,"v":1},"b":{".value":"s",".priority":"p"},"list":{"0":"x","1":"y"}}"#
        try text.write(to: directory.appending("p.json"), atomically: true, encoding: .utf8)
        let imported = try await HearthProcess.run(["import", "p.json", "--data", "d"], directory: directory.url)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let export = try await HearthProcess.run(
            ["export", "--data", "d", "--format", "export"],
            directory: directory.url
        )
        #expect(try Self.parse(export.stdout) == Self.parse(text))
        let plain = try await HearthProcess.run(["export", "--data", "d"], directory: directory.url)
        #expect(try Self.parse(plain.stdout) == Self.parse(#"{"a":{"v":1},"b":"s","list":["x","y"]}"#))
    }

    @Test func importReadsStdin() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try #"{"from":"stdin"}"#.write(to: directory.appending("s.json"), atomically: true, encoding: .utf8)
        let imported = try await HearthProcess.run(
            ["import", "-", "--data", "d"],
            directory: directory.url,
            stdin: directory.appending("s.json")
        )
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let exported = try await HearthProcess.run(["export", "--data", "d"], directory: directory.url)
        #expect(try Self.parse(exported.stdout) == Self.parse(#"{"from":"stdin"}"#))
    }

    /// On a terminal (a pty from util-linux `script`), import and export draw a progress bar.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressBarOnATerminal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.document(count: 3_000, padding: 100).write(
            to: directory.appending("in.json"),
            atomically: true,
            encoding: .utf8
        )
        let binary = HearthProcess.binary.path
        let transcriptURL = directory.appending("transcript")
        let process = try SpawnedProcess(
            executable: "/usr/bin/script",
            arguments: [
                "-qec", "'\(binary)' import in.json --data d && '\(binary)' export --data d --output out.json",
                "/dev/null",
            ],
            environment: HearthProcess.environment(),
            directory: directory.url.path,
            stdout: transcriptURL.path
        )
        try await eventually(timeout: .seconds(120)) { !process.isRunning }
        let transcript = try String(contentsOf: transcriptURL, encoding: .utf8)
        #expect(process.terminationStatus == 0, "\(transcript)")
        #expect(transcript.contains("import  [##############################] 100%"), "\(transcript)")
        #expect(transcript.contains("MB/s"))
        #expect(transcript.contains("export  "))
    }

    @Test func invalidJSONFailsWithExit1() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try #"{"a": [1, 2"#.write(to: directory.appending("bad.json"), atomically: true, encoding: .utf8)
        let result = try await HearthProcess.run(["import", "bad.json", "--data", "d"], directory: directory.url)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Error: "), "stderr: \(result.stderr)")
    }

    @Test func aRunningServersDatabaseIsImportedAndExportedThroughItsAPI() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try #"{"a":{"b":1},"c":"x y"}"#.write(to: directory.appending("in.json"), atomically: true, encoding: .utf8)
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let imported = try await HearthProcess.run(
            ["import", "in.json", "--data", "data", "--path", "/some where/é"],
            directory: directory.url
        )
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        // Through the server: its listeners and readers see it at once.
        #expect(try await server.request("GET", "/some%20where/%C3%A9/c.json", admin: true).body == #""x y""#)
        let exported = try await HearthProcess.run(
            ["export", "--data", "data", "--path", "/some where"],
            directory: directory.url
        )
        #expect(exported.status == 0, "stderr: \(exported.stderr)")
        #expect(try Self.parse(exported.stdout) == Self.parse(#"{"é":{"a":{"b":1},"c":"x y"}}"#))
        let otherNamespace = try await HearthProcess.run(
            ["import", "in.json", "--data", "data", "--ns", "other"],
            directory: directory.url
        )
        #expect(otherNamespace.status == 0, "stderr: \(otherNamespace.stderr)")
        #expect(try await server.request("GET", "/c.json?ns=other", admin: true).body == #""x y""#)
        let wrongSecret = try await HearthProcess.run(
            ["export", "--url", server.baseURL, "--admin-secret", "wrong"],
            directory: directory.url
        )
        #expect(wrongSecret.status == 1)
        #expect(wrongSecret.stderr.contains("answered 401"), "stderr: \(wrongSecret.stderr)")

        // A server that cannot be found (its address file gone): refused clearly.
        try FileManager.default.removeItem(at: data.appendingPathComponent("server.json"))
        let lost = try await HearthProcess.run(["export", "--data", "data"], directory: directory.url)
        #expect(lost.status == 1)
        #expect(
            lost.stderr.contains("Error: The data directory 'data' is in use by a running Hearth server."),
            "stderr: \(lost.stderr)"
        )
        _ = try await server.terminate()
        // Once the server stopped, the directory is read directly.
        let later = try await HearthProcess.run(
            ["export", "--data", "data", "--ns", "other"],
            directory: directory.url
        )
        #expect(later.status == 0, "stderr: \(later.stderr)")
        #expect(try Self.parse(later.stdout) == Self.parse(#"{"a":{"b":1},"c":"x y"}"#))
    }

    /// Import memory is bounded, not proportional to the file: the peak RSS of the importing
    /// process, sampled from /proc while it runs, stays within a fixed budget (the binary, LevelDB's
    /// 32 MiB write buffer and a few 1 MiB chunks) for a ~60 MB file. Reading the file whole and
    /// parsing it into a tree would take several times the file's size.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
    func importStreamsLargeFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.appending("big.json")
        _ = FileManager.default.createFile(atPath: input.path, contents: nil)
        let handle = try FileHandle(forWritingTo: input)
        try handle.write(contentsOf: Data("{".utf8))
        let batch = 2_000
        for part in 0..<40 {
            var text = part == 0 ? "" : ","
            text += #""p\#(part)":"#
            text += String(Self.document(count: batch, padding: 600))
            try handle.write(contentsOf: Data(text.utf8))
        }
        try handle.write(contentsOf: Data("}".utf8))
        try handle.close()
        let size = try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int ?? 0
        #expect(size > 50_000_000)

        let child = try Child.launch(["import", input.path, "--data", "data"], directory: directory.url)
        var peakKB = 0
        // Sampled while it runs (its /proc entry goes with it); at most 10 minutes, then the
        // wait below kills it and records the failure.
        let deadline = ContinuousClock.now + .seconds(600)
        while child.isRunning && ContinuousClock.now < deadline {
            if let status = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
            {
                peakKB = max(peakKB, kb)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let status = try await child.wait(timeout: .seconds(600))
        #expect(status == 0, "stderr: \(child.stderr())")
        #expect(peakKB > 0)
        #expect(peakKB < 128 * 1024, "peak RSS \(peakKB / 1024) MB for a \(size / 1_000_000) MB file")

        let exported = try await HearthProcess.run(
            ["export", "--data", "data", "--path", "/p39/r1999/n"],
            directory: directory.url
        )
        #expect(exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1999")
    }
}
