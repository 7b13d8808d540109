public import Foundation

/// A fresh directory under the system's temporary directory, for one test's data; `remove()`
/// deletes it with everything in it.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    /// Creates `<tmp>/<prefix>-<uuid>`.
    public init(prefix: String = "hearth-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    /// `url` with `component` appended.
    public func appending(_ component: String) -> URL { url.appendingPathComponent(component) }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `body` with a fresh directory, removed afterwards.
    public static func with<T>(
        prefix: String = "hearth-test",
        _ body: (TemporaryDirectory) async throws -> T
    ) async throws -> T {
        let directory = try TemporaryDirectory(prefix: prefix)
        defer { directory.remove() }
        return try await body(directory)
    }
}
