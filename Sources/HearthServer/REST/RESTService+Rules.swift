import HearthDatabase
import Hummingbird

extension RESTService {
    /// `GET|PUT /.settings/rules.json?ns=` (admin only). GET answers the verbatim text of the rules
    /// in force. PUT compiles the body: with errors, 400 and every diagnostic rendered
    /// (`file:line:col: message`, source line, caret), the old rules stay; else the file is
    /// rewritten, the program installed and the namespace created (if it was not) before the
    /// answer.
    func handleRules(_ call: Call, request: Request) async throws -> Response {
        guard call.credential == .admin else { throw RESTError.permissionDenied }
        let namespace = call.options.namespace
        switch call.method {
        case .get:
            let document = try await database.rulesDocument(for: namespace)
            return ResponseBuilder.json(Array(document.utf8))
        case .put:
            let text = try await withBody(of: request, options: call.options) { body in
                String(validating: body, as: UTF8.self)
            }
            guard let text else { throw RESTError.badRequest("Invalid rules document: not valid UTF-8.") }
            try await Self.replaceRules(text, for: namespace, in: database)
            return ResponseBuilder.json("{\"status\":\"ok\"}", print: call.options.print)
        default:
            throw Self.methodNotAllowed
        }
    }

    /// `Database.replaceRules`, a document with errors refused with 400 and its diagnostics.
    static func replaceRules(_ text: String, for namespace: String, in database: Database) async throws {
        do {
            try await database.replaceRules(text, for: namespace)
        } catch let error as DatabaseError where error.code == .invalidRules {
            throw RESTError.badRequest(error.message)
        }
    }
}
