import HearthCore

extension RealtimeSession {
    /// The database work for request `requestID` is done: answers it, then starts the requests
    /// queued behind it. An outcome for any other request than the one in flight is ignored.
    public mutating func completed(_ outcome: RequestOutcome, for requestID: RequestID) -> [SessionAction] {
        guard phase == .open, let request = inFlight?.request, request.id == requestID else { return [] }
        inFlight = nil
        var actions: [SessionAction] = []
        switch request.action {
        case .listen(let listen):
            completeListen(listen, requestID, outcome, into: &actions)
        case .authenticate:
            completeAuthentication(requestID, outcome, into: &actions)
        case .get:
            switch outcome {
            case .value(let node): respond(requestID, .ok, .tree(node), into: &actions)
            case .ok: respond(requestID, .ok, .tree(nil), into: &actions)
            default: respondFailure(requestID, outcome, into: &actions)
            }
        default:
            switch outcome {
            case .ok: respond(requestID, .ok, .empty, into: &actions)
            default: respondFailure(requestID, outcome, into: &actions)
            }
        }
        actions += pump()
        return actions
    }

    mutating func completeListen(
        _ listen: ListenRequest,
        _ id: RequestID,
        _ outcome: RequestOutcome,
        into actions: inout [SessionAction]
    ) {
        let key = listen.key
        let data: Node??
        let warnings: [String]
        switch outcome {
        case .listening(let node, let w): (data, warnings) = (.some(node), w)
        case .listeningUnchanged(let w): (data, warnings) = (nil, w)
        case .ok: (data, warnings) = (nil, [])
        default:
            listens.removeValue(forKey: key)
            respondFailure(id, outcome, into: &actions)
            return
        }
        // A listen revoked while it was pending gets its answer but no data.
        if listens[key] != nil {
            listens[key]?.isActive = true
            if let data {
                send(.dataUpdate(DataUpdate(path: listen.path, change: .set(data), tag: listen.tag)), into: &actions)
            }
        }
        let body: ResponseData =
            warnings.isEmpty ? .emptyObject : .json(.object([("w", .array(warnings.map { .string($0) }))]))
        respond(id, .ok, body, into: &actions)
    }

    mutating func completeAuthentication(
        _ id: RequestID,
        _ outcome: RequestOutcome,
        into actions: inout [SessionAction]
    ) {
        switch outcome {
        case .authenticated(let newIdentity):
            var members: [(String, JSONValue)] = [("auth", newIdentity.authVariable)]
            if let expiry = newIdentity.expiresAt {
                members.append(("expires", .number(Double(expiry.millisecondsSince1970 / 1000))))
            }
            respond(id, .ok, .json(.object(members)), into: &actions)
            if newIdentity != identity {
                identity = newIdentity
                actions.append(.identityChanged(newIdentity))
            }
        default:
            respondFailure(id, outcome, into: &actions)
            becomeAnonymous(into: &actions)
        }
    }

    /// Answers with the outcome's status and message (or a generic failure for an outcome that
    /// does not fit the request).
    func respondFailure(_ id: RequestID, _ outcome: RequestOutcome, into actions: inout [SessionAction]) {
        if case .failed(let status, let message) = outcome {
            respond(id, status, .message(message), into: &actions)
        } else {
            respond(id, .failure, .message("The server could not complete the request."), into: &actions)
        }
    }
}
