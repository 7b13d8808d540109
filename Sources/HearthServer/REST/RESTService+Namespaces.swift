import HearthCore
import HearthDatabase
import Hummingbird

extension RESTService {
    static let namespacesPath = "/.settings/namespaces.json"

    /// `GET /.settings/namespaces.json` (admin): every database (namespace) the server has, on
    /// disk or `default`, sorted: `{"namespaces": ["chat", "default"]}`. The console's health
    /// view shows one column of figures for each.
    func listNamespaces(_ call: Call) async throws -> Response {
        guard call.credential == .admin else { throw RESTError.permissionDenied }
        guard call.method == .get else { throw Self.methodNotAllowed }
        let names = try database.namespaceNames()
        var out: [UInt8] = []
        JSONRenderer.render(["namespaces": .array(names.map(JSONValue.string))], into: &out)
        return ResponseBuilder.json(out, print: call.options.print)
    }
}
