// A Hearth server with the end-to-end tests' triggers (`ListChildCounter`, `CommitFile`) and,
// with `--chat-ns NAME`, the chat app's, for the tests that kill it: `hearth-trigger-server
// --port P --data DIR --admin-secret S [--commit-file FILE] [--chat-ns NAME]`. Test-only: the
// `hearth` binary has no such hook.
import Foundation
import HearthChat
import HearthDatabase
import HearthServer
import HearthTriggerFixtures
import Logging

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("hearth-trigger-server: unexpected argument '\(flag)'\n".utf8))
        exit(2)
    }
    options[String(flag.dropFirst(2))] = value
}
guard let port = options["port"].flatMap(Int.init), let data = options["data"], let secret = options["admin-secret"]
else {
    FileHandle.standardError.write(
        Data(
            "usage: hearth-trigger-server --port P --data DIR --admin-secret S [--commit-file F] [--chat-ns NAME]\n"
                .utf8
        )
    )
    exit(2)
}
var configuration = HearthServerConfiguration(
    host: "127.0.0.1",
    port: port,
    dataDirectory: data,
    rulesFile: data + "/database.rules.json",
    seedFile: nil,
    adminSecret: secret
)
configuration.triggers = try .endToEnd(commitFile: options["commit-file"])
if let chat = options["chat-ns"] { try ChatApp.register(in: &configuration.triggers, namespaces: [chat]) }
var logger = Logger(label: "hearth-trigger-server")
logger.logLevel = .warning
try await HearthServer.run(configuration: configuration, logger: logger)
