import HearthCore
import HearthDatabase
import Hummingbird

extension RESTService {
    static let rulesHistoryPath = "/.settings/rules/history.json"
    static let rulesRollbackPath = "/.settings/rules:rollback"

    /// `GET /.settings/rules/history.json` (admin): the namespace's last rules documents,
    /// newest first: `{"versions": [{"version", "publishedAt", "origin", "text"}]}`.
    func rulesHistory(_ call: Call) async throws -> Response {
        guard call.credential == .admin else { throw RESTError.permissionDenied }
        guard call.method == .get else { throw Self.methodNotAllowed }
        let history = try await database.rulesHistory(for: call.options.namespace)
        let versions = history.reversed().map { version -> JSONValue in
            [
                "version": .number(Double(version.version)), "publishedAt": .number(version.publishedAt),
                "origin": .string(version.origin), "text": .string(version.text),
            ]
        }
        var out: [UInt8] = []
        JSONRenderer.render(["versions": .array(versions)], into: &out)
        return ResponseBuilder.json(out, print: call.options.print)
    }

    /// `POST /.settings/rules:rollback` (admin) with `{"version": N}`: puts version N of the
    /// namespace's history back in force (its file rewritten), as a new version.
    func rollbackRules(_ request: Request) async throws -> Response {
        let options = try adminToolOptions(request)
        let json = try await jsonBody(of: request, options: options, tool: "rollback", hint: #"; send {"version": N}"#)
        guard let number = json["version"]?.numberValue, number >= 1, number.rounded() == number else {
            throw RESTError.badRequest("Invalid rollback: 'version' must be a version number from the history.")
        }
        let history = try await database.rulesHistory(for: options.namespace)
        guard let version = history.first(where: { $0.version == UInt64(number) }) else {
            let kept = history.map { String($0.version) }.joined(separator: ", ")
            throw RESTError.badRequest(
                "Invalid rollback: version \(Int(number)) is not in the history (kept: \(kept))."
            )
        }
        try await Self.replaceRules(version.text, for: options.namespace, in: database)
        let newest = try await database.rulesHistory(for: options.namespace).last?.version ?? version.version
        return ResponseBuilder.json(#"{"status":"ok","version":\#(newest)}"#, print: options.print)
    }
}
