import ArgumentParser
import Foundation
import HearthRules

/// `hearth rules check FILE`, `hearth rules test FILE.json` and `hearth rules simulate FILE ...`.
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Check a rules file, run rule test cases, or simulate one read or write.",
        subcommands: [RulesCheckCommand.self, RulesTestCommand.self, RulesSimulateCommand.self]
    )
}

/// Parses and type-checks a rules file; prints every problem as `file:line:col: message` with
/// the source line and a caret; exits 1 when there is one.
struct RulesCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Parse and type-check a rules file (exit 1 on errors)."
    )

    @Argument(
        help: "The rules file: database rules (rules/database.rules.json) or storage rules (rules/storage.rules)."
    )
    var file: String

    func run() async throws {
        let source = try RulesFiles.read(file)
        if RulesFiles.isStorageRules(source, path: file) {
            switch StorageRules.compile(source: source, fileName: file) {
            case .success(let rules):
                print("\(file): ok (storage rules, rules_version '\(rules.version)')")
            case .failure(let diagnostics):
                FileHandle.standardError.write(Data((diagnostics.description + "\n").utf8))
                throw ExitCode(1)
            }
            return
        }
        switch RulesDocument.compile(source: source, fileName: file) {
        case .success(let program):
            print("\(file): ok (\(program.indexes.count) indexes)")
        case .failure(let diagnostics):
            FileHandle.standardError.write(Data((diagnostics.description + "\n").utf8))
            throw ExitCode(1)
        }
    }
}

/// Runs a rule test file (format in docs/rules.md) and prints `N passed, N failed`; exits 1
/// when a case fails or the file is invalid.
struct RulesTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run rule test cases and print 'N passed, N failed' (exit 1 on failures)."
    )

    @Argument(help: "The test file (JSON; see docs/rules.md).")
    var file: String

    func run() async throws {
        let text = try RulesFiles.read(file)
        let directory = (file as NSString).deletingLastPathComponent
        let read = { (path: String) in
            try RulesFiles.read(path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path))
        }
        if StorageRuleTestRunner.namesStorageRules(text) {
            do {
                let report = try StorageRuleTestRunner(readFile: read).run(testFile: text, fileName: file)
                print(report.description)
                if report.failed > 0 { throw ExitCode(1) }
            } catch let failure as RuleTestRunner.Failure {
                FileHandle.standardError.write(Data("Error: \(failure.description)\n".utf8))
                throw ExitCode(1)
            }
            return
        }
        let runner = RuleTestRunner(readFile: read)
        do {
            let report = try runner.run(testFile: text, fileName: file)
            print(report.description)
            if report.failed > 0 { throw ExitCode(1) }
        } catch let failure as RuleTestRunner.Failure {
            FileHandle.standardError.write(Data("Error: \(failure.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// Reading rules files with a user-facing error.
enum RulesFiles {
    /// Whether a rules file is in the storage rules language (`service firebase.storage`)
    /// rather than a database rules document (JSON).
    static func isStorageRules(_ source: String, path: String) -> Bool {
        if path.hasSuffix(".json") { return false }
        return path.hasSuffix(".rules") || source.contains("service")
    }

    static func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError(.file, "Cannot read '\(path)': \(error.localizedDescription)")
        }
    }
}
