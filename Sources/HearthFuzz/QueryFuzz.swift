import HearthCore
import HearthFuzzSupport
import HearthProtocol

/// Query parsing: a realtime query object (`q`: `sp`, `ep`, `l`, `vf`, `i`, ...) that parses, written
/// back as the SDK writes it, parses to the same `Query`; a refusal is a `ProtocolError`.
enum QueryFuzz {
    static let target = FuzzTarget(name: "query") { input in
        guard let value = try? JSONParser.parse(input) else { return }
        do {
            let query = try QueryObject.query(from: value)
            let object = QueryObject.object(for: query)
            let again = try? QueryObject.query(from: object)
            require(again == query, "query \(query) written as \(object) reads back as \(String(describing: again))")
            _ = QueryObject.loadsAllData(query)
        } catch {
            require(error is ProtocolError, "refusal is not a ProtocolError: \(error)")
        }
    }
}
