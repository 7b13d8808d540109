import HTTPTypes
import HearthAccounts
import Hummingbird
import Logging
import NIOCore

/// Firebase Auth's REST API over the accounts store, on the server's own port:
/// `accounts:signUp`, `:signInWithPassword`, `:lookup`, `:update`, `:delete`, `:sendOobCode`,
/// `:resetPassword` and `securetoken.googleapis.com/v1/token`. `?key=` is accepted and
/// ignored, as the Firebase emulator does. With the admin credential as bearer token,
/// `lookup`, `update` and `delete` take a `localId` (the Admin SDK's privileged calls).
struct AccountsEndpoint: Sendable {
    let accounts: AccountsStore
    let credentials: CredentialResolver
    let cors: CORS
    let scheme: String
    let logger: Logger
    /// What the apps remove when an account is deleted, before it is (`AccountDeletionHandler`).
    var beforeDeletion: @Sendable (String) async throws -> Void = { _ in }

    func respond(to request: Request, route: AccountsRoute, clientAddress: String?) async -> Response {
        let started = ContinuousClock.now
        var response: Response
        do throws(AccountsError) {
            response = try await handle(request, route: route, clientAddress: clientAddress)
        } catch {
            if ErrorAnswer.to(error).isInternal {
                logger.error("accounts failure", metadata: ["hearth.error": "\(error.detail ?? "-")"])
            }
            response = AccountsResponse.error(error)
        }
        cors.decorate(&response)
        RequestLog.write(request, response, since: started, logger: logger)
        return response
    }

    private func handle(
        _ request: Request,
        route: AccountsRoute,
        clientAddress: String?
    ) async throws(AccountsError)
        -> Response
    {
        if case .unknown = route { return AccountsResponse.notFound }
        // In a cluster: what other nodes acknowledged before this request is seen by it.
        try await accounts.synchronize()
        if route == .batchGet, request.method == .get { return try listAccounts(request) }
        guard request.method == .post else { return AccountsResponse.notFound }
        var request = request
        let bytes: [UInt8]
        do {
            bytes = Array(try await request.collectBody(upTo: AccountsRequestBody.maxBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw AccountsError(
                .invalidArgument,
                "The request body is larger than \(AccountsRequestBody.maxBytes) bytes"
            )
        } catch {
            throw AccountsError(.invalidArgument, "The request body could not be read: \(error)")
        }
        let body = try AccountsRequestBody(bytes: bytes, contentType: request.headers[.contentType])
        let privileged = isAdmin(request)
        switch route {
        case .signUp:
            let result = try await accounts.signUp(
                email: body.string("email"),
                password: body.string("password"),
                displayName: body.string("displayName")
            )
            var object = AccountsResponse.tokens(result)
            object["kind"] = "identitytoolkit#SignupNewUserResponse"
            object["localId"] = result.account.localId
            if let email = result.account.email { object["email"] = email }
            if let name = result.account.displayName { object["displayName"] = name }
            return AccountsResponse.json(object)
        case .signInWithPassword:
            let result = try await accounts.signIn(
                email: body.string("email"),
                password: body.string("password"),
                clientAddress: clientAddress
            )
            var object = AccountsResponse.tokens(result)
            object["kind"] = "identitytoolkit#VerifyPasswordResponse"
            object["localId"] = result.account.localId
            object["email"] = result.account.email ?? ""
            object["displayName"] = result.account.displayName ?? ""
            object["registered"] = true
            if let photo = result.account.photoUrl { object["profilePicture"] = photo }
            return AccountsResponse.json(object)
        case .lookup:
            return try lookup(body, privileged: privileged)
        case .update:
            return try await update(body, privileged: privileged)
        case .delete:
            if privileged, body.string("idToken") == nil {
                guard let uid = body.string("localId") else { throw AccountsError(.missingLocalID) }
                guard accounts.account(uid: uid) != nil else { throw AccountsError(.userNotFound) }
                try await runDeletionHandlers(uid)
                try await accounts.deleteAccount(uid: uid)
            } else {
                let idToken = body.string("idToken")
                try await runDeletionHandlers(try accounts.lookup(idToken: idToken).localId)
                try await accounts.delete(idToken: idToken)
            }
            return AccountsResponse.json(["kind": "identitytoolkit#DeleteAccountResponse"])
        case .sendOobCode:
            guard let type = body.string("requestType"), !type.isEmpty else { throw AccountsError(.missingRequestType) }
            guard type == "PASSWORD_RESET" else {
                throw AccountsError(.invalidRequestType, "Hearth sends only PASSWORD_RESET codes, not '\(type)'")
            }
            let email = try await accounts.sendPasswordReset(
                email: body.string("email"),
                linkBase: linkBase(request),
                apiKey: queryKey(request),
                continueURL: body.string("continueUrl")
            )
            return AccountsResponse.json(["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": email])
        case .resetPassword:
            let email = try await accounts.resetPassword(
                code: body.string("oobCode"),
                newPassword: body.string("newPassword")
            )
            return AccountsResponse.json(
                ["kind": "identitytoolkit#ResetPasswordResponse", "email": email, "requestType": "PASSWORD_RESET"]
            )
        case .batchGet:
            return AccountsResponse.notFound
        case .token:
            guard let grant = body.string("grant_type", or: "grantType"), !grant.isEmpty else {
                throw AccountsError(.missingGrantType)
            }
            guard grant == "refresh_token" else { throw AccountsError(.invalidGrantType) }
            let result = try accounts.refresh(body.string("refresh_token", or: "refreshToken"))
            return AccountsResponse.json([
                "access_token": result.idToken,
                "id_token": result.idToken,
                "refresh_token": result.refreshToken,
                "expires_in": String(result.expiresIn),
                "token_type": "Bearer",
                "user_id": result.account.localId,
                "project_id": accounts.configuration.projectID,
            ])
        case .unknown:
            return AccountsResponse.notFound
        }
    }

    private func lookup(_ body: AccountsRequestBody, privileged: Bool) throws(AccountsError) -> Response {
        var users: [[String: Any]] = []
        if privileged, body.string("idToken") == nil {
            var seen = Set<String>()
            let found =
                body.strings("localId").compactMap(accounts.account(uid:))
                + body.strings("email").compactMap(accounts.account(email:))
            for account in found where seen.insert(account.localId).inserted {
                users.append(AccountsResponse.user(account))
            }
        } else {
            users.append(AccountsResponse.user(try accounts.lookup(idToken: body.string("idToken"))))
        }
        var object: [String: Any] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        if !users.isEmpty { object["users"] = users }
        return AccountsResponse.json(object)
    }

    private func update(_ body: AccountsRequestBody, privileged: Bool) async throws(AccountsError) -> Response {
        var changes = AccountChanges(
            email: body.string("email"),
            password: body.string("password"),
            displayName: body.string("displayName"),
            photoUrl: body.string("photoUrl"),
            deleteAttributes: Set(body.strings("deleteAttribute"))
        )
        changes.disabled = body.bool("disableUser")
        changes.emailVerified = body.bool("emailVerified")
        if body.has("customAttributes") {
            guard let claims = body.string("customAttributes") else {
                throw AccountsError(
                    .invalidClaims,
                    #"customAttributes must be a string holding a JSON object, e.g. "{\"admin\": true}""#
                )
            }
            changes.customAttributes = claims
        }
        let account: AccountRecord
        var tokens: SignInResult?
        if let idToken = body.string("idToken") {
            (account, tokens) = try await accounts.update(idToken: idToken, changes: changes)
        } else if privileged {
            guard let uid = body.string("localId") else { throw AccountsError(.missingLocalID) }
            account = try await accounts.update(uid: uid, changes: changes)
        } else {
            throw AccountsError(.invalidRequestType, "Unsupported request parameters.")
        }
        var object: [String: Any] = [
            "kind": "identitytoolkit#SetAccountInfoResponse",
            "localId": account.localId,
            "emailVerified": account.emailVerified,
            "providerUserInfo": AccountsResponse.providers(account),
        ]
        if let email = account.email { object["email"] = email }
        if let name = account.displayName { object["displayName"] = name }
        if let photo = account.photoUrl { object["photoUrl"] = photo }
        if let tokens, body.bool("returnSecureToken") != false {
            object.merge(AccountsResponse.tokens(tokens)) { $1 }
        }
        return AccountsResponse.json(object)
    }

    /// True when the request carries the admin credential as a bearer token.
    func isAdmin(_ request: Request) -> Bool {
        guard let authorization = request.headers[.authorization] else { return false }
        return (try? credentials.resolve(queryAuth: nil, authorization: authorization)) == .admin
    }

    /// The origin reset links point at: the request's `Host`.
    private func linkBase(_ request: Request) -> String {
        "\(scheme)://\(request.head.authority ?? "127.0.0.1")"
    }

    private func queryKey(_ request: Request) -> String? {
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        return (try? QueryString(target.query))?["key"]
    }

    /// Runs the account-deletion handlers; a failure keeps the account (a retry runs them again).
    private func runDeletionHandlers(_ uid: String) async throws(AccountsError) {
        do {
            try await beforeDeletion(uid)
        } catch {
            throw AccountsError(.internalError, "removing the data of account '\(uid)' failed: \(error)")
        }
    }
}
