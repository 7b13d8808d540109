import HTTPTypes
import HearthCore
import HearthRules
import HearthStorage
import Hummingbird
import NIOCore

/// The storage rules' admin endpoints (the admin credential only):
///
/// - `GET /.settings/storage.rules`: the document in force, as written (404 without a file);
/// - `PUT /.settings/storage.rules`: compiles the body; with errors, 400 naming each line and
///   column (the rules in force stay); else writes `rules/storage.rules` and puts it in force
///   before answering `{"status": "ok"}`;
/// - `POST /.settings/storage.rules:check`: `{"ok", "diagnostics": [{"line", "column", "message"}]}`
///   for a draft, nothing changed;
/// - `POST /.settings/storage.rules:simulate`: the decision for `{"method", "path", "bucket"?,
///   "auth"?, "resource"?, "newResource"?, "now"?, "rules"?}` against the real database, with
///   the trace of every `allow` that ran (`StorageRuleDecision.json`).
enum StorageRulesAction: Equatable {
    case document, check, simulate

    static let documentPath = "/.settings/storage.rules"

    init?(path: Substring) {
        switch path {
        case Self.documentPath: self = .document
        case Self.documentPath + ":check": self = .check
        case Self.documentPath + ":simulate": self = .simulate
        default: return nil
        }
    }
}

extension StorageEndpoint {
    /// The largest rules document or simulation body taken.
    static let maxRulesBytes = 1 << 20

    func respond(to request: Request, rules action: StorageRulesAction, query: Substring?) async -> Response {
        var response: Response
        do {
            response = try await answer(request, rules: action, query: query)
        } catch let error as StorageError {
            response = Self.settingsError(error.code.httpStatus, error.message)
        } catch {
            response = Self.settingsError(400, "\(error)")
        }
        cors.decorate(&response, exposing: Self.exposedHeaders)
        return response
    }

    private func answer(
        _ request: Request,
        rules action: StorageRulesAction,
        query: Substring?
    ) async throws -> Response {
        let queryAuth = (try? QueryString(query))?["auth"]
        let caller: Credential
        do {
            caller = try credentials.resolve(queryAuth: queryAuth, authorization: request.headers[.authorization])
        } catch {
            return Self.settingsError(
                401,
                "The credential is not valid: send the admin secret as 'Authorization: Bearer <secret>'."
            )
        }
        guard caller == .admin else {
            return Self.settingsError(403, "The storage rules are the admin's: send the admin secret.")
        }
        switch (action, request.method) {
        case (.document, .get):
            guard let text = access.rules.text else {
                return Self.settingsError(
                    404,
                    "There is no storage rules file (\(access.rules.path)): only the admin reads or writes files."
                )
            }
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: text)))
            response.headers[.contentType] = "text/plain; charset=utf-8"
            return response
        case (.document, .put):
            let text = try await Self.text(of: request)
            do {
                try await access.rules.replace(with: text)
            } catch let diagnostics as RulesDiagnostics {
                return Self.settingsError(400, "Invalid storage rules:\n\(diagnostics)")
            }
            return ResponseBuilder.json("{\"status\":\"ok\"}")
        case (.check, .post):
            let text = try await Self.text(of: request)
            var found: RulesDiagnostics?
            if case .failure(let diagnostics) = StorageRules.compile(source: text, fileName: "draft.rules") {
                found = diagnostics
            }
            return Self.jsonAnswer(RulesDiagnostics.checkAnswer(found))
        case (.simulate, .post):
            return try await simulate(request)
        default:
            return Self.settingsError(405, "Use GET or PUT on /.settings/storage.rules, POST on :check and :simulate.")
        }
    }

    private func simulate(_ request: Request) async throws -> Response {
        let text = try await Self.text(of: request)
        guard let json = try? JSONParser.parse(text), case .object = json else {
            return Self.settingsError(
                400,
                "A simulation is a JSON object: {\"method\", \"path\", \"auth\"?, \"resource\"?, \"newResource\"?}."
            )
        }
        let rules: StorageRules
        if let draft = json["rules"] {
            guard let source = draft.stringValue else {
                return Self.settingsError(400, "'rules' must be a rules document as a string.")
            }
            switch StorageRules.compile(source: source, fileName: "simulated.rules") {
            case .success(let compiled): rules = compiled
            case .failure(let diagnostics): return Self.settingsError(400, "Invalid storage rules:\n\(diagnostics)")
            }
        } else {
            guard let inForce = access.rules.rules else {
                return Self.settingsError(400, "There is no storage rules file; send the rules to try as 'rules'.")
            }
            rules = inForce
        }
        let ruleRequest: StorageRuleRequest
        do {
            ruleRequest = try StorageRuleRequest(json: json, bucket: access.defaultBucket, now: access.clock.now())
        } catch {
            return Self.settingsError(400, "Invalid simulation: \(error.description)")
        }
        let judge = StorageJudge(caller: .anonymous, rules: rules, now: ruleRequest.now)
        let decision = try await access.run(judge) { database in
            rules.decide(ruleRequest, database: database, recording: true)
        }
        return Self.jsonAnswer(decision.json)
    }

    private static func text(of request: Request) async throws -> String {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxRulesBytes)
        } catch {
            throw StorageError(.tooLarge, "A rules document takes at most \(maxRulesBytes) bytes.")
        }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw StorageError(.invalidMetadata, "The rules document is not valid UTF-8.")
        }
        return text
    }

    static func settingsError(_ status: Int, _ message: String) -> Response {
        jsonAnswer(["error": .string(message)], status: status)
    }

    static func jsonAnswer(_ value: JSONValue, status: Int = 200) -> Response {
        var out: [UInt8] = []
        JSONRenderer.render(value, into: &out)
        return ResponseBuilder.json(out, status: HTTPResponse.Status(code: status))
    }
}
