import HearthCore
import Hummingbird

/// What the admin's `POST` tools share (`/.settings/rules:simulate`, `:check`, `:rollback`).
extension RESTService {
    /// The request's options, once its credential is the admin's and its method `POST`.
    /// - Throws: 401 for any other credential, 405 for another method.
    func adminToolOptions(_ request: Request) throws -> RESTOptions {
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        let options = try RESTOptions.parse(try QueryString(target.query))
        let credential = try credentials.resolve(
            queryAuth: options.auth,
            authorization: request.headers[.authorization]
        )
        guard credential == .admin else { throw RESTError.permissionDenied }
        guard request.method == .post else { throw Self.methodNotAllowed }
        return options
    }

    /// The tool's JSON body.
    /// - Throws: 400 `Invalid <tool>: the body is not JSON (<why>)<hint>.`
    func jsonBody(of request: Request, options: RESTOptions, tool: String, hint: String = "") async throws -> JSONValue
    {
        try await withBody(of: request, options: options) { body in
            do {
                return try JSONParser.parse(body)
            } catch {
                throw RESTError.badRequest("Invalid \(tool): the body is not JSON (\(error))\(hint).")
            }
        }
    }
}
