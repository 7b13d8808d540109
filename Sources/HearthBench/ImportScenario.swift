import Foundation

/// `import`: times `hearth import FILE --data DIR` on a generated chat-like JSON file (no server needed).
struct ImportScenario {
    var hearthBinary: String
    var megabytes: Int
    var namespace: String?
    var workDirectory: String?
    var keepFiles: Bool
    var targetMBPerS: Double

    func run() throws -> ImportReport {
        let fileManager = FileManager.default
        guard fileManager.isExecutableFile(atPath: hearthBinary) else {
            throw BenchError("--hearth-binary '\(hearthBinary)' is not an executable file")
        }
        let base = workDirectory ?? NSTemporaryDirectory()
        let directory = URL(fileURLWithPath: base).appendingPathComponent("hearth-bench-import-\(getpid())")
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            if !keepFiles { try? fileManager.removeItem(at: directory) }
        }
        let file = directory.appendingPathComponent("chat.json")
        let dataDirectory = directory.appendingPathComponent("data")

        progress("import: generating \(megabytes) MB at \(file.path)")
        let generateStarted = ContinuousClock.now
        let fileBytes = try Self.generate(megabytes: megabytes, to: file)
        let generateSeconds = (ContinuousClock.now - generateStarted).seconds

        var arguments = ["import", file.path, "--data", dataDirectory.path]
        if let namespace { arguments += ["--ns", namespace] }
        progress("import: \(hearthBinary) \(arguments.joined(separator: " "))")
        let log = directory.appendingPathComponent("import.log")
        _ = fileManager.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hearthBinary)
        process.arguments = arguments
        process.standardOutput = logHandle
        process.standardError = logHandle
        let started = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - started).seconds
        try? logHandle.close()
        let status = process.terminationStatus
        guard status == 0 else {
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw BenchError("hearth import exited with status \(status): \(output.suffix(500))")
        }
        let mbPerS = Double(fileBytes) / 1e6 / seconds
        progress("import: \(fileBytes) bytes in \(r3(seconds)) s = \(r3(mbPerS)) MB/s")
        return ImportReport(
            fileBytes: fileBytes,
            generateSeconds: r3(generateSeconds),
            seconds: r3(seconds),
            mbPerS: r3(mbPerS),
            exitStatus: status,
            targetMBPerS: targetMBPerS,
            meetsTarget: mbPerS >= targetMBPerS
        )
    }

    /// Writes `{"users":{…},"messages":{"chat0":{…},…}}` of about `megabytes` MB; returns its size.
    static func generate(megabytes: Int, to file: URL) throws -> Int {
        let target = megabytes * 1_000_000
        let chatBytes = 4_000_000
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BenchError("cannot create '\(file.path)'")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var generator = ChatDataGenerator(seed: 200, senderCount: 1000)
        var chunk: [UInt8] = []
        chunk.reserveCapacity(chatBytes + 64 * 1024)
        chunk.append(contentsOf: #"{"users":"#.utf8)
        generator.appendUsers(to: &chunk)
        chunk.append(contentsOf: #","messages":{"#.utf8)
        var written = 0
        var chat = 0
        while written + chunk.count < target || chat == 0 {
            if chat > 0 { chunk.append(UInt8(ascii: ",")) }
            chunk.append(contentsOf: "\"chat\(chat)\":".utf8)
            let remaining = target - written - chunk.count
            generator.appendMessages(approximately: max(1000, min(chatBytes, remaining)), to: &chunk)
            chat += 1
            try handle.write(contentsOf: chunk)
            written += chunk.count
            chunk.removeAll(keepingCapacity: true)
        }
        chunk.append(contentsOf: "}}\n".utf8)
        try handle.write(contentsOf: chunk)
        return written + chunk.count
    }
}
