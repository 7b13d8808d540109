import HearthCore
import HearthDatabase
import HearthRules
import Hummingbird

extension RESTService {
    static let simulatePath = "/.settings/rules:simulate"

    /// `POST /.settings/rules:simulate` (admin only): the rules simulator. The body is a
    /// `RuleSimulation` (`{"op", "path", "auth", "value"?, "query"?, "now"?}`), optionally with
    /// `"rules"`: a rules document (text) to try instead of the namespace's rules in force. The
    /// answer is the decision with every rule that ran and the value of every part of each
    /// (`RuleDecision.json`), judged against the namespace's data as it is; nothing is written.
    func simulate(_ request: Request) async throws -> Response {
        let options = try adminToolOptions(request)
        let json = try await jsonBody(of: request, options: options, tool: "simulation")
        let (simulation, program) = try Self.simulation(from: json)
        let engine = try await database.engine(for: options.namespace)
        let decision: RuleDecision
        do {
            decision = try await engine.simulate(simulation, with: program)
        } catch let error as RuleInputError {
            throw RESTError.badRequest("Invalid simulation: \(error.description)")
        }
        var out: [UInt8] = []
        JSONRenderer.render(decision.json, into: &out)
        return ResponseBuilder.json(out, print: options.print)
    }

    /// The simulation of a request body, and the rules document it brings (compiled), if any.
    static func simulation(from json: JSONValue) throws -> (RuleSimulation, RuleProgram?) {
        let simulation: RuleSimulation
        do {
            simulation = try RuleSimulation(json: json)
        } catch {
            throw RESTError.badRequest("Invalid simulation: \(error)")
        }
        guard let rules = json["rules"] else { return (simulation, nil) }
        guard let text = rules.stringValue else {
            throw RESTError.badRequest("Invalid simulation: 'rules' must be a rules document as a string.")
        }
        switch RulesDocument.compile(source: text, fileName: "simulated.rules.json") {
        case .success(let program): return (simulation, program)
        case .failure(let diagnostics): throw RESTError.badRequest("Invalid rules document:\n\(diagnostics)")
        }
    }
}

extension RESTService {
    static let rulesCheckPath = "/.settings/rules:check"

    /// `POST /.settings/rules:check` (admin) with a rules document as the body: compiles it
    /// without putting it in force and answers `{"ok", "diagnostics": [{"line", "column",
    /// "message"}]}` (the console checks as the admin types).
    func checkRules(_ request: Request) async throws -> Response {
        let options = try adminToolOptions(request)
        let text = try await withBody(of: request, options: options) { body in String(validating: body, as: UTF8.self) }
        guard let text else { throw RESTError.badRequest("Invalid rules document: not valid UTF-8.") }
        var found: RulesDiagnostics?
        if case .failure(let diagnostics) = RulesDocument.compile(source: text, fileName: "draft.rules.json") {
            found = diagnostics
        }
        var out: [UInt8] = []
        JSONRenderer.render(RulesDiagnostics.checkAnswer(found), into: &out)
        return ResponseBuilder.json(out, print: options.print)
    }
}
