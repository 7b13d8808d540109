import HTTPTypes
import HearthCore
import HearthDatabase
import HearthPush
import Hummingbird
import Logging

/// The Firebase REST API over the database: decodes a request, checks its credential, hands it
/// to the database (read, write, rules) and turns the outcome into a response. Errors are
/// thrown and turned into responses by `ErrorResponder`.
struct RESTService: Sendable {
    /// Judges every request by the namespace's rules, reads and writes; writes reach their
    /// listeners through its engines.
    let database: Database
    let credentials: CredentialResolver
    let maxRequestBodyBytes: Int
    /// The memory all request bodies being read may hold together.
    let bodyMemory: BodyMemoryBudget
    let logger: Logger
    /// The push queues shown at `GET /.settings/push.json`, when push notifications are on.
    var push: (any PushQueueStatus)? = nil

    static let healthPath = "/.well-known/hearth/health"
    static let rulesPath = "/.settings/rules.json"

    /// A decoded REST request.
    struct Call: Sendable {
        let method: HTTPRequest.Method
        let rawPath: String
        let options: RESTOptions
        let credential: Credential
        let headers: HTTPFields
        /// Who the rules judge the call as (made once: a user's is built from the token's claims).
        let caller: Caller

        init(
            method: HTTPRequest.Method,
            rawPath: String,
            options: RESTOptions,
            credential: Credential,
            headers: HTTPFields
        ) {
            self.method = method
            self.rawPath = rawPath
            self.options = options
            self.credential = credential
            self.headers = headers
            caller = credential.caller
        }

        var wantsETag: Bool { headers[ResponseBuilder.firebaseETag]?.lowercased() == "true" }
        var ifMatch: String? { headers[.ifMatch].map(ResponseBuilder.normalizedETag) }
        var ifNoneMatch: String? { headers[.ifNoneMatch].map(ResponseBuilder.normalizedETag) }
    }

    func handle(_ request: Request) async throws -> Response {
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        let rawPath = String(target.path)
        if rawPath == Self.healthPath {
            guard request.method == .get || request.method == .head else { throw Self.methodNotAllowed }
            return ResponseBuilder.json("{\"status\":\"ok\"}")
        }
        if let asset = ConsoleAssets.response(for: rawPath, method: request.method) { return asset }
        if rawPath == Self.simulatePath { return try await simulate(request) }
        if rawPath == Self.rulesCheckPath { return try await checkRules(request) }
        if rawPath == Self.rulesRollbackPath { return try await rollbackRules(request) }
        guard rawPath.hasSuffix(".json") else { throw RESTError.notFound }

        let query = try QueryString(target.query)
        let options = try RESTOptions.parse(query)
        let method = try Self.effectiveMethod(request, override: options.methodOverride)
        var credential = try credentials.resolve(
            queryAuth: options.auth,
            authorization: request.headers[.authorization]
        )
        if let override = options.authVariableOverride {
            credential = try Self.overriddenCredential(credential, with: override)
        }
        let call = Call(
            method: method,
            rawPath: rawPath,
            options: options,
            credential: credential,
            headers: request.headers
        )

        if rawPath == Self.rulesPath {
            return try await handleRules(call, request: request)
        }
        if rawPath == Self.rulesHistoryPath { return try await rulesHistory(call) }
        if rawPath == Self.pushPath { return try await pushStatus(call) }
        if rawPath == Self.namespacesPath { return try await listNamespaces(call) }

        let decoded = try Self.decodePath(rawPath)
        switch method {
        case .get:
            let (path, isPriority) = try CoreBridge.parseWritePath(decoded)
            let engine = try await database.open(options.namespace, as: call.caller)
            return try await read(call, path: path, isPriority: isPriority, in: engine)
        case .put, .post, .patch, .delete:
            let (path, isPriority) = try CoreBridge.parseWritePath(decoded)
            if isPriority && method != .put && method != .delete {
                throw RESTError.badRequest("Invalid path '\(decoded)': only PUT and DELETE may target '.priority'.")
            }
            if options.shallow != nil { throw RESTError.badRequest("shallow is only supported by GET requests.") }
            if options.callback != nil { throw RESTError.badRequest("callback is only supported by GET requests.") }
            if options.download != nil { throw RESTError.badRequest("download is only supported by GET requests.") }
            if options.query != nil {
                throw RESTError.badRequest("Query parameters are only supported by GET requests.")
            }
            let engine = try await database.open(options.namespace, as: call.caller)
            // The push id is chosen first: the rules may judge the new child's key.
            let pushID = method == .post ? CoreBridge.nextPushID() : nil
            let target = pushID.map { path.child(ChildKey($0)) } ?? path
            let announced = Self.announcedBytes(request)
            try await refuseBeforeBody(call, at: target, announcedBytes: announced, in: engine)
            if method == .delete {
                return try await write(call, path: path, isPriority: isPriority, body: [], in: engine)
            }
            return try await withBody(of: request, options: options) { body in
                try await write(
                    call,
                    path: path,
                    isPriority: isPriority,
                    body: body,
                    pushID: pushID,
                    in: engine
                )
            }
        default:
            throw Self.methodNotAllowed
        }
    }

    /// `auth_variable_override`: only the admin may act as another `auth` (rules then apply
    /// to it); `null` acts as anonymous, an object as a user with that `uid`/`provider`/`token`.
    static func overriddenCredential(_ credential: Credential, with override: JSONValue) throws -> Credential {
        guard credential == .admin else {
            throw RESTError(.unauthorized, "auth_variable_override can only be used with the admin credential.")
        }
        guard case .object = override else { return .anonymous }
        let token = override["token"] ?? .object([])
        var claims: [UInt8] = []
        JSONRenderer.render(token, into: &claims)
        return .user(
            UserClaims(
                uid: override["uid"]?.stringValue ?? "",
                provider: override["provider"]?.stringValue,
                claimsJSON: claims,
                expiresAt: token["exp"]?.numberValue,
                signedInAt: Int64(
                    exactly: (token["auth_time"]?.numberValue ?? token["iat"]?.numberValue ?? 0).rounded(.towardZero)
                )
            )
        )
    }

    static let methodNotAllowed = RESTError(.methodNotAllowed, "Method not allowed")

    /// The request's method after `X-HTTP-Method-Override` / `x-http-method-override`, honoured
    /// on `POST` only, as Firebase documents it: any other request keeps its own method (a `GET`
    /// with an override is a plain read and never changes data).
    static func effectiveMethod(_ request: Request, override queryOverride: String?) throws -> HTTPRequest.Method {
        guard request.method == .post, let override = request.headers[ResponseBuilder.methodOverride] ?? queryOverride
        else {
            return request.method
        }
        switch override.uppercased() {
        case "GET": return .get
        case "PUT": return .put
        case "POST": return .post
        case "PATCH": return .patch
        case "DELETE": return .delete
        default:
            throw RESTError.badRequest(
                "Invalid X-HTTP-Method-Override '\(override)': use GET, PUT, POST, PATCH or DELETE."
            )
        }
    }

    /// The data path of `/a/b.json`, percent-decoded.
    static func decodePath(_ rawPath: String) throws -> String {
        let withoutSuffix = String(rawPath.dropLast(".json".count))
        guard let decoded = PercentDecoding.decode(Substring(withoutSuffix)) else {
            throw RESTError.badRequest("Invalid path '\(withoutSuffix)': not valid percent-encoded UTF-8.")
        }
        return decoded
    }
}
