import Foundation
import HearthTestSupport

/// Damages the LevelDB files of a stopped data directory the way a failing disk would, for the
/// corruption and doctor tests.
struct StoreDamage {
    let database: URL

    init(dataDirectory: URL) {
        database = dataDirectory.appendingPathComponent("db")
    }

    /// The store's files whose names end with `suffix` (`.ldb`, `.log`), largest first.
    func files(endingWith suffix: String) throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: database.path).filter { $0.hasSuffix(suffix) }
        return try names.map { database.appendingPathComponent($0) }.sorted {
            try size(of: $0) > size(of: $1)
        }
    }

    /// The MANIFEST that `CURRENT` names.
    func manifest() throws -> URL {
        let current = try String(contentsOf: database.appendingPathComponent("CURRENT"), encoding: .utf8)
        return database.appendingPathComponent(current.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Inverts `count` bytes of `file` from `offset`, by default from its middle (bit rot
    /// inside a record or a block).
    func flipBytes(in file: URL, count: Int = 8, at offset: Int? = nil) throws {
        var bytes = try [UInt8](Data(contentsOf: file))
        guard bytes.count > count * 2 else { throw TestFailure("\(file.lastPathComponent) is too small to damage") }
        let start = offset ?? (bytes.count / 2 - count / 2)
        for index in start..<(start + count) { bytes[index] ^= 0xFF }
        try Data(bytes).write(to: file)
    }

    /// Cuts `file` to `length` bytes (a disk that lost the end of a file).
    func truncate(_ file: URL, to length: Int) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(length))
    }

    func size(of file: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
    }

    /// An offset inside the first data block of a table file.
    static let firstBlock = 16

    /// `count` small writes (`/log/i<N>`) by a server that then stops cleanly: they are in the
    /// store's log only, not yet in a table.
    static func storeLogWrites(_ count: Int, in data: URL, workingDirectory: URL) async throws {
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: workingDirectory)
        for index in 0..<count {
            _ = try await server.request("PUT", "/log/i\(index).json", body: "\(index)", admin: true)
        }
        guard try await server.terminate().status == 0 else { throw TestFailure("the server did not stop cleanly") }
    }

    /// Writes `count` strings of about 100 bytes (`/items/i<n>`) through a server on `data`, then
    /// stops it, then has `hearth doctor` open the store once, which makes LevelDB move them from
    /// its log into a table file (`.ldb`). Data keys sort first, so 200 of them fill the table's
    /// first blocks (4 KiB each) with items only: damage at its start spares the namespace table.
    static func storeItems(_ count: Int, in data: URL, workingDirectory: URL) async throws {
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: workingDirectory)
        var items: [String] = []
        let filler = String(repeating: "x", count: 96)
        for index in 0..<count { items.append(#""i\#(index)":"\#(index)-\#(filler)""#) }
        let answer = try await server.request(
            "PUT",
            "/items.json",
            body: "{\(items.joined(separator: ","))}",
            admin: true
        )
        guard answer.status == 200 else { throw TestFailure("PUT /items answered \(answer.status): \(answer.body)") }
        guard try await server.terminate().status == 0 else { throw TestFailure("the server did not stop cleanly") }
        let doctor = try await HearthProcess.run(["doctor", "--data", data.path], timeout: .seconds(60))
        guard doctor.status == 0 else {
            throw TestFailure("doctor on a healthy store: \(doctor.stdout) \(doctor.stderr)")
        }
    }
}
