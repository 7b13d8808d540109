import Foundation
import HearthTestSupport
import Testing

/// The shipped seed (`seed/fireside.json`: chats, contacts with favorites, a pending
/// conversation request) is what the chat app itself would have left: `hearth chat check` finds
/// nothing to report in a data directory loaded with it.
struct ShippedSeedCheckTests {
    static let seed = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("seed/fireside.json")

    @Test func theShippedSeedPassesTheChatCheck() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let imported = try await HearthProcess.run(
            ["import", Self.seed.path, "--data", "data"],
            directory: directory.url
        )
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let result = try await HearthProcess.run(["chat", "check", "--data", "data"], directory: directory.url)
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("13 chats, 36 users: no disagreement"), "\(result.stdout)")
    }
}
