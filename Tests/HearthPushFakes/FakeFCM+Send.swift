import Foundation

extension FakeFCM {
    /// FCM's answer to an access token it does not accept.
    static let unauthenticated = FakeHTTPResponse.json(
        401,
        #"{"error":{"code":401,"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.","status":"UNAUTHENTICATED"}}"#
    )

    /// Google's 400 `INVALID_ARGUMENT` with a `BadRequest` naming each field.
    static func badRequest(_ violations: [(field: String, description: String)]) -> FakeHTTPResponse {
        let items = violations.map { #"{"field":"\#($0.field)","description":"\#($0.description)"}"# }
        return .json(
            400,
            #"{"error":{"code":400,"message":"\#(violations.first?.description ?? "Invalid argument")","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[\#(items.joined(separator: ","))]}]}}"#
        )
    }

    /// `messages:send`: the path's project, the bearer token, the content type and the message
    /// (`checkMessage`); then a scripted answer, or 200 with the message's name.
    func respondToSend(_ request: FakeHTTPRequest) -> FakeHTTPResponse {
        let expectedPath = "/v1/projects/\(account.projectID)/messages:send"
        guard request.method == "POST", request.path == expectedPath else {
            return violation(
                "send: \(request.method) \(request.path), not POST \(expectedPath)",
                FakeFCMAnswer.error(404, "NOT_FOUND", "Requested entity was not found.", fcm: nil)
            )
        }
        let authorization = request.header("Authorization") ?? ""
        guard authorization.hasPrefix("Bearer ") else {
            return violation(
                "send: Authorization '\(authorization.prefix(12))...' is not a Bearer token",
                Self.unauthenticated
            )
        }
        let accessToken = String(authorization.dropFirst("Bearer ".count))
        let now = clock.now()
        let known = state.withLock { state -> Bool? in
            guard let expiry = state.issued[accessToken] else {
                // Revoked, or never issued (a violation only when it never was).
                return state.grants.contains { $0.accessToken == accessToken } ? false : nil
            }
            return expiry > now
        }
        guard let known else { return violation("send: a bearer token it never issued", Self.unauthenticated) }
        guard known else { return Self.unauthenticated }
        guard request.header("Content-Type")?.hasPrefix("application/json") == true else {
            return violation(
                "send: Content-Type '\(request.header("Content-Type") ?? "")', not application/json",
                Self.badRequest([("Content-Type", "not JSON")])
            )
        }
        guard let top = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            return violation(
                "send: the body is not a JSON object",
                Self.badRequest([("", "Invalid JSON payload received.")])
            )
        }
        let problems = Self.checkRequest(top)
        let message = top["message"] as? [String: Any] ?? [:]
        let notification = message["notification"] as? [String: Any]
        let aps = ((message["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any]
        var record = FakeFCMSend(
            accessToken: accessToken,
            token: message["token"] as? String ?? "",
            title: notification?["title"] as? String,
            body: notification?["body"] as? String,
            data: message["data"] as? [String: String] ?? [:],
            badge: (aps?["badge"] as? NSNumber)?.intValue,
            androidPriority: (message["android"] as? [String: Any])?["priority"] as? String,
            messageKeys: Set(message.keys),
            answerStatus: 200
        )
        let response: FakeHTTPResponse
        if !problems.isEmpty {
            response = violation(
                "send: " + problems.map { "\($0.field): \($0.description)" }.joined(separator: "; "),
                Self.badRequest(problems)
            )
        } else {
            response = state.withLock { state in
                if let answer = state.tokenAnswers[record.token] { return answer.response }
                if !state.nextSends.isEmpty { return state.nextSends.removeFirst().response }
                let id = "0:\(UInt64.random(in: 1...UInt64.max))"
                return .json(200, #"{"name":"projects/\#(account.projectID)/messages/\#(id)"}"#)
            }
        }
        record.answerStatus = response.status
        state.withLock { $0.sends.append(record) }
        return response
    }

    /// Every field of a `SendMessageRequest` as Google's reference documents it (the parts of the
    /// `Message` resource a push may use): problems as `BadRequest` field violations.
    static func checkRequest(_ top: [String: Any]) -> [(field: String, description: String)] {
        var problems: [(field: String, description: String)] = []
        func fail(_ field: String, _ description: String) { problems.append((field, description)) }
        for key in top.keys where !["message", "validate_only"].contains(key) {
            fail(key, "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.")
        }
        if top["validate_only"] != nil { fail("validate_only", "a push is never a dry run") }
        guard let message = top["message"] as? [String: Any] else {
            fail("message", "Required.")
            return problems
        }
        let known: Set = [
            "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition",
        ]
        for key in message.keys where !known.contains(key) {
            fail(
                "message.\(key)",
                "Invalid JSON payload received. Unknown name \"\(key)\" at 'message': Cannot find field."
            )
        }
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        if targets != ["token"] { fail("message", "exactly one target, a token, expected; found \(targets)") }
        if let token = message["token"], (token as? String)?.isEmpty != false {
            fail("message.token", "The registration token is not a valid FCM registration token")
        }
        if let notification = message["notification"] {
            if let fields = notification as? [String: Any] {
                for (key, value) in fields {
                    if !["title", "body", "image"].contains(key) {
                        fail("message.notification.\(key)", "Unknown name \"\(key)\": Cannot find field.")
                    } else if !(value is String) {
                        fail("message.notification.\(key)", "Invalid value (TYPE_STRING)")
                    }
                }
            } else {
                fail("message.notification", "not an object")
            }
        }
        if let data = message["data"] {
            if let fields = data as? [String: Any] {
                var size = 0
                for (index, (key, value)) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                    guard let text = value as? String else {
                        fail(
                            "message.data[\(index)].value",
                            "Invalid value at 'message.data[\(index)].value' (TYPE_STRING)"
                        )
                        continue
                    }
                    let lower = key.lowercased()
                    if ["from", "notification", "message_type"].contains(lower) || lower.hasPrefix("google")
                        || lower.hasPrefix("gcm")
                    {
                        fail("message.data", "Invalid data key '\(key)': reserved by FCM")
                    }
                    size += key.utf8.count + text.utf8.count
                }
                if size > 4096 { fail("message.data", "Message is too big (\(size) bytes of data; 4096 at most)") }
            } else {
                fail("message.data", "not a map of strings")
            }
        }
        if let apns = message["apns"] {
            if let fields = apns as? [String: Any] {
                for key in fields.keys
                where !["headers", "payload", "fcm_options", "live_activity_token"].contains(key) {
                    fail("message.apns.\(key)", "Unknown name \"\(key)\": Cannot find field.")
                }
                if let payload = fields["payload"] {
                    if let aps = (payload as? [String: Any])?["aps"] as? [String: Any] {
                        if let badge = aps["badge"],
                            !(badge is NSNumber) || (badge as? NSNumber)!.intValue < 0
                                || (badge as? NSNumber)!.doubleValue != Double((badge as? NSNumber)!.intValue)
                        {
                            fail("message.apns.payload.aps.badge", "not a non-negative integer")
                        }
                    } else {
                        fail("message.apns.payload", "an APNs payload is an object with an 'aps' dictionary")
                    }
                }
            } else {
                fail("message.apns", "not an object")
            }
        }
        if let android = message["android"] {
            if let fields = android as? [String: Any] {
                let allowed: Set = [
                    "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification",
                    "fcm_options", "direct_boot_ok", "bandwidth_constrained_ok", "restricted_satellite_ok",
                ]
                for key in fields.keys where !allowed.contains(key) {
                    fail("message.android.\(key)", "Unknown name \"\(key)\": Cannot find field.")
                }
                if let priority = fields["priority"],
                    !["normal", "high", "NORMAL", "HIGH"].contains(priority as? String ?? "")
                {
                    fail("message.android.priority", "Invalid value at 'message.android.priority': \(priority)")
                }
            } else {
                fail("message.android", "not an object")
            }
        }
        return problems
    }
}
