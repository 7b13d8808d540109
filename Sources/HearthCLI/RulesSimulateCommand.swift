import ArgumentParser
import Foundation
import HearthCore
import HearthRules

/// `hearth rules simulate FILE --op read --path /p [--auth JSON] [--value JSON] [--data FILE]`:
/// the rules simulator offline, against data from a JSON file (default: none). Prints the
/// decision, the rule that decided it and every rule that ran with its outcome, under each the
/// value of every part of its expression as an indented tree (or, with `--json`, what
/// `POST /.settings/rules:simulate` answers); exits 0 when allowed, 2 when denied, 1 on bad input.
struct RulesSimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract:
            "Would a read or write be allowed? Prints the deciding rule and every rule that ran, with the value of each part."
    )

    @Argument(help: "The rules file, e.g. rules/database.rules.json.")
    var file: String

    @Option(help: "read, write or update.")
    var op: String

    @Option(help: "The path read or written, e.g. /users/alice.")
    var path: String

    @Option(
        help:
            #"The caller's auth as JSON, e.g. '{"uid":"alice"}' or '{"uid":"a","token":{"admin":true}}'; none: anonymous."#
    )
    var auth: String?

    @Option(help: "The data of a write (JSON), or an update's object of relative paths.")
    var value: String?

    @Option(help: "A JSON file with the database's data (default: empty).")
    var data: String?

    @Option(help: "The rules' now, milliseconds since 1970 (default: the clock).")
    var now: Double?

    @Flag(help: "Print the decision as JSON.")
    var json = false

    func run() async throws {
        let program: RuleProgram
        switch RulesDocument.compile(source: try RulesFiles.read(file), fileName: file) {
        case .success(let compiled): program = compiled
        case .failure(let diagnostics):
            FileHandle.standardError.write(Data((diagnostics.description + "\n").utf8))
            throw ExitCode(1)
        }
        var request: [(String, JSONValue)] = [("op", .string(op)), ("path", .string(path))]
        if let auth { request.append(("auth", try Self.parse(auth, option: "--auth"))) }
        if let value { request.append(("value", try Self.parse(value, option: "--value"))) }
        if let now { request.append(("now", .number(now))) }
        let root: Node?
        do {
            root = try data.flatMap { try TreeParser.parse(try RulesFiles.read($0), at: .root).node }
        } catch let error as CLIError {
            throw error
        } catch {
            throw ValidationError("Invalid data in '\(data ?? "")': \(error)")
        }
        let decision: RuleDecision
        do {
            let simulation = try RuleSimulation(json: .object(request))
            decision = try simulation.run(
                program,
                root: RuleMemorySource(root: root),
                now: Date().timeIntervalSince1970 * 1000
            )
        } catch {
            throw ValidationError("\(error)")
        }
        if json {
            var out: [UInt8] = []
            JSONRenderer.render(decision.json, into: &out)
            print(String(decoding: out, as: UTF8.self))
        } else {
            print(decision.description)
        }
        if !decision.allowed { throw ExitCode(2) }
    }

    private static func parse(_ text: String, option: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw ValidationError("Invalid JSON for '\(option)': \(error)")
        }
    }
}
