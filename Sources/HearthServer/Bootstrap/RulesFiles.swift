import Foundation

/// Where each namespace's rules document lives: `default` uses the configured rules file;
/// namespace `X` uses `X.rules.json` in the same directory.
struct RulesFiles: Sendable {
    /// What a namespace without a rules file gets: nobody but admin reads or writes.
    static let defaultDocument = "{\"rules\": {\".read\": false, \".write\": false}}"

    let defaultRulesFile: String

    func path(for namespace: String) -> String {
        if namespace == "default" { return defaultRulesFile }
        let directory = (defaultRulesFile as NSString).deletingLastPathComponent
        return (directory as NSString).appendingPathComponent("\(namespace).rules.json")
    }

    /// The document text, or nil when the file does not exist.
    func read(for namespace: String) throws -> String? {
        let path = path(for: namespace)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let text = String(data: data, encoding: .utf8) else {
            throw RESTError.badRequest("Rules file '\(path)' is not valid UTF-8.")
        }
        return text
    }

    /// Replaces the file atomically (write beside, then rename).
    func write(_ text: String, for namespace: String) throws {
        let path = path(for: namespace)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
